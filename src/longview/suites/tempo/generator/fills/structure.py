"""Per-scenario structure: which of the skeleton's blocks each built-in scenario keeps and which
extra archetypes it adds (a second-level follow-up chain, a sleep-time job, a booking clash), with
their domain words. Merged over the fills in `all_fills()`; see docs/tempo.md for the resulting mix.

Why these mixes: the paper's scenarios differ in what kind of work they hold (D.1: explicit and
latent needs, conditional chains, competing tasks, NOOP cases) and in how many tasks (10-19).
Research and business lean on sleep-time compute; shopping, living and career on chains of
follow-ups after a purchase or claim; travel, health and education on clashes in the calendar.
"""

from __future__ import annotations

from typing import Any

STRUCTURE: dict[str, dict[str, Any]] = {
    "research-deadline": {  # 15 tasks, two sleep-time tasks, a three-step chain, no offers
        "omit": ["t12"],
        "overnight": {"day": 2, "ask": "Before I sleep: please get the ablation sweep going tonight while the GPUs are idle; "
                      "I want to read the numbers first thing tomorrow morning.",
                      "job": {"title": "Ablation sweep", "body": "Three ablations of the main model; 1 GPU, 4 hours."}},
        "chain": {"notice": "The cluster office processed your usage report: a GPU-hour credit is now on your account.",
                  "item": {"title": "Cluster credit note", "body": "Credit of 40 GPU-hours, reference CR-3318."}, "fact": "CR-3318"},
    },
    "shopping-monitor": {  # 18 tasks: the paper's monitor purchase with the refund check and a delivery clash
        "omit": [],
        "chain": {"notice": "The retailer confirms the price adjustment was paid back to your card.",
                  "item": {"title": "Price-adjustment refund receipt", "body": "£15 refunded, receipt RF-5120."}, "fact": "RF-5120"},
        "clash": {"day": 7, "notice": "The desk-arm courier can only come at 14:00 today, the same time as the "
                  "furniture-store collection slot you booked; the collection slot is free to cancel today.",
                  "booking": {"title": "Furniture-store collection slot (14:00)", "body": "Collect the old chair; free cancellation today."},
                  "fact": "courier"},
    },
    "travel-conference": {  # 15 tasks: no claim, a sleep-time job and a clash after a schedule change
        "moves": {"t07": -2}, "omit": ["t11", "t15", "t03"],
        "overnight": {"day": 4, "ask": "Tonight while I'm asleep, please generate the offline city guide pack so "
                      "it's on my phone tomorrow.",
                      "job": {"title": "Offline city guide pack", "body": "Maps and transit notes; 4 quota points."}},
        "clash": {"day": 3, "notice": "The conference moved your poster session to 13:00 today, when you had the "
                  "museum tour booked; the tour can be cancelled free of charge today.",
                  "booking": {"title": "Museum tour (13:00)", "body": "Guided tour, free cancellation same day."},
                  "fact": "poster session"},
    },
    "living-move": {  # 12 tasks: no offers, no agent-scheduled check, the deposit chain
        "moves": {"t03": 2, "t07": 1}, "omit": ["t04", "t15", "t12"],
        "chain": {"notice": "The letting agent confirms the parking permit was issued and the holding fee returned.",
                  "item": {"title": "Holding fee return note", "body": "£120 returned, reference HF-207."}, "fact": "HF-207"},
    },
    "food-mealplan": {  # 11 tasks, seven days, two sleep-time tasks, nothing conditional on offers
        "moves": {"t03": -1, "t07": 2}, "omit": ["t04", "t10", "t12", "t15"],
        "overnight": {"day": 2, "ask": "Could you generate this week's recipe cards overnight while I sleep? "
                      "I'll print them in the morning.",
                      "job": {"title": "Weekly recipe cards", "body": "Seven cards with shopping quantities; 4 quota points."}},
    },
    "health-recovery": {  # 13 tasks: no prepared draft, no wrap-up, a clash and a sleep-time video job
        "moves": {"t03": 1, "t15": -2}, "omit": ["t10", "t11", "t05", "t16"],
        "overnight": {"day": 3, "ask": "Please process this week's exercise videos tonight while I sleep; "
                      "I'll look at the form notes in the morning.",
                      "job": {"title": "Exercise video form check", "body": "Pose tracking on five clips; 1 GPU, 4 hours."}},
        "clash": {"day": 4, "notice": "Your physio moved today's session to 18:00, when your gym induction is "
                  "booked; the gym lets you cancel free of charge today.",
                  "booking": {"title": "Gym induction (18:00)", "body": "Intro session, free same-day cancellation."},
                  "fact": "physio"},
    },
    "career-applications": {  # 17 tasks: chain after the interview form, cover letters overnight
        "moves": {"t03": 3, "t07": -1}, "omit": ["t11"],
        "overnight": {"day": 2, "ask": "Tonight, while I sleep, please generate tailored cover-letter drafts for "
                      "the three archive roles; I'll edit them in the morning.",
                      "job": {"title": "Cover-letter drafts for archive roles", "body": "Three drafts; 4 quota points."}},
        "chain": {"notice": "The employer acknowledged your accessibility form and confirmed the arrangements.",
                  "item": {"title": "Interview arrangements confirmation", "body": "Step-free room 2B, reference IA-562."},
                  "fact": "IA-562"},
    },
    "business-launch": {  # 18 tasks: every kind, the widest graph
        "moves": {"t03": 2, "t15": -1}, "omit": ["t04"],
        "overnight": {"day": 6, "ask": "Please render the product-photo batch tonight while I sleep so the shop "
                      "listings can use them tomorrow.",
                      "job": {"title": "Product-photo render batch", "body": "24 photos; 1 GPU, 4 hours."}},
        "chain": {"notice": "The quality sign-off came back: batch approved and the supplier issued a certificate.",
                  "item": {"title": "Batch quality certificate", "body": "Certificate QC-8802 for batch QS-4040."},
                  "fact": "QC-8802"},
        "clash": {"day": 8, "notice": "The wholesale buyer can only meet at 16:00 today, when your photographer "
                  "is booked; the photographer's slot is free to cancel today.",
                  "booking": {"title": "Photographer slot (16:00)", "body": "Studio session; free same-day cancellation."},
                  "fact": "wholesale buyer"},
    },
    "education-course": {  # 13 tasks, seven days: no claim, no offers, a clash with the rescheduled exam
        "moves": {"t07": -2}, "omit": ["t15", "t03", "t12"],
        "overnight": {"day": 2, "ask": "Please export the flashcard review video tonight while I sleep; I'll watch "
                      "it on the bus in the morning.",
                      "job": {"title": "Flashcard review video export", "body": "Units 4-5; 1 GPU, 4 hours."}},
        "clash": {"day": 6, "notice": "The oral exam was moved to 17:00 today, when your conversation-club seat "
                  "is booked; the club lets you cancel free of charge today.",
                  "booking": {"title": "Conversation-club seat (17:00)", "body": "Weekly club; free same-day cancellation."},
                  "fact": "oral exam"},
    },
    "finance-taxes": {  # 15 tasks: no follow-up branch, no wrap-up, receipts categorised overnight
        "moves": {"t07": 2, "t15": 1}, "omit": ["t10", "t16"],
        "overnight": {"day": 3, "ask": "Tonight while I sleep, please run the receipt categorisation for last "
                      "year; I'll check the totals in the morning.",
                      "job": {"title": "Receipt categorisation run", "body": "412 receipts; 4 quota points."}},
    },
}
