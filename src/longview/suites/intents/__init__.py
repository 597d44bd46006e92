"""The ``intents`` suite: π-Bench's hidden-intent workflow protocol on the longview kernel.

Starting from an underspecified request, does the agent surface the user's unstated requirements
(by inferring them from earlier sessions and the workspace, or by a targeted question) before the
user has to say them, and does it still deliver a correct artifact? See docs/intents.md.
"""
