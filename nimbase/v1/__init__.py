"""Generated protobuf and gRPC modules of the nimbase.v1 contract (`make proto`)."""
