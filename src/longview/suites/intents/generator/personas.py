"""The five built-in personas and the vocabulary their sessions are drawn from (all synthetic)."""

from __future__ import annotations

PERSONAS = [
    {
        "id": "researcher", "name": "Lena Fischer", "email": "lena.fischer@example.org", "phone": "5550101001",
        "profile": "A postdoctoral researcher in multimodal machine learning. Runs a small reading group, "
                   "supervises two students and keeps her experiments, reading notes and travel in order.",
        "topics": ["reading group", "ablation study", "camera-ready paper", "lab retreat", "GPU budget",
                   "student meeting", "conference trip", "dataset audit", "rebuttal", "poster session"],
        "people": ["Jonas Berg", "Amara Diallo", "Keiko Sato", "Tomás Ruiz", "Noor Haddad"],
        "tags": ["vision-lab", "retreat-26", "rebuttal-q2", "audit-v3", "poster-final", "ablate-7b"],
        "risks": ["GPU quota runs out mid-week", "reviewer 2 may ask for new baselines", "dataset licence unclear",
                  "co-author travel visa pending"],
        "steps": ["book the seminar room", "email the area chair", "rerun seed 3", "archive the raw logs",
                  "ask Jonas for the figure files"],
        "amounts": ["EUR 1,200", "EUR 350", "EUR 4,800", "EUR 90"],
        "audiences": ["the two PhD students", "the reading group", "the department head", "the co-authors"],
        "sections": ["Open questions", "Decisions", "Action items", "Results so far"],
    },
    {
        "id": "marketer", "name": "Omar Haddad", "email": "omar.haddad@example.org", "phone": "5550102002",
        "profile": "A growth marketer at a mid-size e-commerce brand. Plans campaigns, reports weekly metrics "
                   "to his manager and coordinates agencies and freelancers.",
        "topics": ["spring campaign", "newsletter", "agency brief", "influencer shortlist", "weekly report",
                   "launch event", "ad budget", "landing page test", "brand survey", "holiday promo"],
        "people": ["Clara Janssen", "Ravi Menon", "Sofia Greco", "Ben Adler", "Yuki Tanaka"],
        "tags": ["spring-26", "promo-ret", "brief-v2", "launch-ldn", "abtest-lp", "survey-q1"],
        "risks": ["agency invoice overdue", "creative assets late", "CTR below 1.2 percent", "legal review pending"],
        "steps": ["send the brief to Clara", "freeze the creative by Thursday", "book the studio",
                  "export the CRM segment", "confirm the venue deposit"],
        "amounts": ["USD 8,000", "USD 2,500", "USD 15,000", "USD 600"],
        "audiences": ["his manager Clara", "the agency team", "the sales leads", "the whole marketing team"],
        "sections": ["Headline numbers", "What changed", "Next week", "Blockers"],
    },
    {
        "id": "pharmacist", "name": "Mei Lin", "email": "mei.lin@example.org", "phone": "5550103003",
        "profile": "A hospital pharmacist who reviews medication orders, runs stock checks and trains new "
                   "technicians; she also keeps her family's errands organised.",
        "topics": ["stock check", "technician training", "interaction review", "ward round", "audit visit",
                   "cold-chain log", "formulary update", "night shift handover", "vaccine clinic", "recall notice"],
        "people": ["Dr. Aziz Rahman", "Helen Park", "Marco Bianchi", "Grace Obi", "Ivan Petrov"],
        "tags": ["cold-chain", "ward-7b", "formulary-26", "recall-lot44", "training-wk3", "audit-apr"],
        "risks": ["fridge 2 logged 9 degrees", "lot 44 recall not yet confirmed", "two technicians on leave",
                  "insulin pens low on ward 7B"],
        "steps": ["call the wholesaler", "quarantine lot 44", "re-check the fridge log at 18:00",
                  "brief Helen at handover", "file the incident report"],
        "amounts": ["GBP 2,300", "GBP 480", "GBP 75", "GBP 9,900"],
        "audiences": ["the new technicians", "the ward sisters", "the chief pharmacist", "the night team"],
        "sections": ["Urgent", "Stock levels", "Follow-ups", "Sign-off"],
    },
    {
        "id": "law_trainee", "name": "Sam Okafor", "email": "sam.okafor@example.org", "phone": "5550104004",
        "profile": "A trainee solicitor in a commercial litigation team. Drafts notes and chronologies, "
                   "tracks deadlines for two supervising partners and prepares handovers.",
        "topics": ["disclosure review", "client update", "court bundle", "witness statement", "handover memo",
                   "costs budget", "chronology", "settlement call", "case law search", "filing deadline"],
        "people": ["Partner Ruth Collins", "Partner David Moyo", "Aisha Khan", "Tom Whitfield", "Lucia Romero"],
        "tags": ["matter-4471", "disclosure-p2", "bundle-final", "costs-q3", "witness-ab", "handover-sam"],
        "risks": ["limitation date 14 May", "privileged document in batch 3", "client not yet signed retainer",
                  "hearing may be relisted"],
        "steps": ["send the draft to Ruth", "paginate the bundle", "diary the reply deadline",
                  "check the privilege log", "call the court listing office"],
        "amounts": ["GBP 12,500", "GBP 3,200", "GBP 740", "GBP 25,000"],
        "audiences": ["Partner Ruth Collins", "the client contact", "the incoming trainee", "the paralegals"],
        "sections": ["Key dates", "Risks", "Open actions", "Privileged"],
    },
    {
        "id": "financier", "name": "Priya Raman", "email": "priya.raman@example.org", "phone": "5550105005",
        "profile": "A model-risk analyst validating credit and market-risk models. Writes validation findings, "
                   "keeps a remediation tracker and also uses the assistant for personal errands.",
        "topics": ["PD model validation", "VaR backtest", "remediation tracker", "committee pack",
                   "stress scenario", "data lineage review", "quarterly attestation", "team offsite",
                   "vendor model review", "findings log"],
        "people": ["Arjun Mehta", "Elena Volkova", "Chris Dunne", "Fatima Zahra", "Leo Martins"],
        "tags": ["val-pd-26", "var-bt-q1", "remed-log", "committee-apr", "stress-s3", "lineage-v2"],
        "risks": ["backtest shows 7 exceptions", "override rate above 15 percent", "vendor documentation missing",
                  "data lineage gap in segment C"],
        "steps": ["escalate to Arjun", "rerun the backtest with 2025 data", "book the committee slot",
                  "request vendor documentation", "update the findings log"],
        "amounts": ["USD 40,000", "USD 5,500", "USD 1,100", "USD 250"],
        "audiences": ["the model risk committee", "the model owners", "Arjun Mehta", "internal audit"],
        "sections": ["Findings", "Limitations", "Recommendations", "Model-use judgment"],
    },
]

SONGS = [("Northern Lights", "Aurora Vale", "ambient"), ("Paper Boats", "The Lanterns", "indie"),
         ("Quiet Hours", "Mira Sol", "ambient"), ("Run the Numbers", "Static Bloom", "electronic"),
         ("Morning Tram", "The Lanterns", "indie"), ("Slow River", "Aurora Vale", "ambient"),
         ("Signal Fire", "Static Bloom", "electronic"), ("Harbour Song", "Mira Sol", "folk"),
         ("Late Train Home", "June Ferro", "folk"), ("Glass City", "June Ferro", "electronic")]

PRODUCTS = [("Eco Refill Pack 500ml", "cleaning", 6.5), ("Noise-Cancelling Earbuds", "audio", 79.0),
            ("A5 Dotted Notebook", "stationery", 12.0), ("Laptop Stand Aluminium", "office", 34.0),
            ("Blue Light Glasses", "health", 22.0), ("Insulated Water Bottle 750ml", "outdoor", 18.5),
            ("USB-C Hub 7-in-1", "electronics", 41.0), ("Desk Plant Pothos", "home", 15.0),
            ("Ergonomic Mouse", "office", 29.0), ("Travel Adapter Universal", "travel", 19.0)]
