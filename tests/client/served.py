"""The real service the client tests talk to (conftest's `service`): its admin token."""

ADMIN_TOKEN = "client-test-token"
