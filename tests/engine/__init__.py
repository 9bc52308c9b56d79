"""Engine tests: the kinds and kernels called directly, with no service around them."""
