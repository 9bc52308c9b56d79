"""Game families. Each module holds one family's rules; `registry` turns game ids into games."""
