"""The kernels (engine.kernels) against their plain references."""
