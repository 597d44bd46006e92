"""The `intents` suite's profile line (how `longview profile` reads it)."""

from longview.harness.suite import ProfileSpec

PROFILE = ProfileSpec(
    label="hidden intents",
    metric="proc",
    variant="default",
    quick_units=3,
    reading="share of the user's unstated needs the agent met or drew out without being told "
            "(floor: does only what is said; ceiling: knows every intent)",
    also=["comp"],
)
