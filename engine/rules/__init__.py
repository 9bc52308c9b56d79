"""Games defined by their rules (nimbase_rules): solved tier by tier, stored, and served as a kind."""
