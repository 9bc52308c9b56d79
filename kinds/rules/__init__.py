"""Games defined by their rules (nimbase_rules): solved tier by tier, stored, and served as a kind. Its
face: `SOURCE`, the entry point through which plugin authors' games become families of the registry,
and `RulesGame`, the kind of one of them."""

from kinds.rules.kind import RulesGame
from kinds.rules.plugins import SOURCE

__all__ = ["SOURCE", "RulesGame"]
