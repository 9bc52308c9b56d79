"""Imported last by a fork server (nimbase.fork_server): what its preload made frozen, the collector on
again, before it forks a child (which inherits both)."""

from nimbase import collector

collector.freeze_startup()
