"""nimbase."""
