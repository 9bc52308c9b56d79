"""Generated protobuf and gRPC modules of the nimbase.v1 contract (`make proto`, from
proto/nimbase/v1/nimbase.proto): the repository's one copy, which the server imports too."""
