"""The generated protobuf and gRPC modules of the nimbase.v1 contract, under the server's name.

They are generated once, into the client package (`nimbase_client.v1`, by `make proto` from
proto/nimbase/v1/nimbase.proto); the server imports them from there or, as it always has, from here.
"""

import sys

from nimbase_client.v1 import nimbase_pb2, nimbase_pb2_grpc

# `import nimbase.v1.nimbase_pb2` finds the same modules too: one copy of the descriptors, registered once.
sys.modules[f"{__name__}.nimbase_pb2"] = nimbase_pb2
sys.modules[f"{__name__}.nimbase_pb2_grpc"] = nimbase_pb2_grpc

__all__ = ["nimbase_pb2", "nimbase_pb2_grpc"]
