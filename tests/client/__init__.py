"""The client package (`nimbase_client`, ./client): in-process tests, a fresh virtualenv holding only it,
TLS, and the example bot, against a real service on loopback."""
