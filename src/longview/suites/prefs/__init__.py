"""MemPABench on longview: does the agent's memory learn *how* this user wants to be helped —
separately at work and in personal life, and as that changes — and does the agent deliver it?"""
