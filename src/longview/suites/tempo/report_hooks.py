"""The `tempo` suite's profile line (how `longview profile` reads it)."""

from longview.harness.suite import ProfileSpec

PROFILE = ProfileSpec(
    label="temporal allocation and trust",
    metric="ta",
    variant="default",
    quick_units=3,
    reading="share of decision windows where the urgent task is handled now and the competing one "
            "explicitly deferred to a feasible time",
    also=["tr_d", "trust_sim"],
)
