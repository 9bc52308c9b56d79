"""The Python client, kept importable from its old home: it lives in the `nimbase-client` package.

New code imports `nimbase_client` (`pip install ./client`), which needs nothing of the server.
"""

from nimbase_client import (
    MAX_MESSAGE_BYTES,
    AsyncNimbaseClient,
    AsyncRestClient,
    NimbaseClient,
    NimbaseClientError,
    RestClient,
)

__all__ = [
    "MAX_MESSAGE_BYTES",
    "AsyncNimbaseClient",
    "AsyncRestClient",
    "NimbaseClient",
    "NimbaseClientError",
    "RestClient",
]
