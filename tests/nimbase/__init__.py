"""The shared package `nimbase`: its settings, the one reading of the environment."""
