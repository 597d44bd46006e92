"""Reports: one self-contained HTML file for any mix of runs and suites (`longview report`), paired
comparisons of two runs (`longview compare`) and a model's proactivity profile across every
registered suite (`longview profile`)."""
