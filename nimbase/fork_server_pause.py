"""Imported first by a fork server (nimbase.fork_server): its preload imported with the collector off."""

from nimbase import collector

collector.pause_for_startup()
