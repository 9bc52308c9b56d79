"""Real reference files fetched at test time into a cache, never into the repository."""
