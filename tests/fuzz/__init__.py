"""Property-based fuzzing of the REST API from its own OpenAPI document (schemathesis over hypothesis).

Every route of `/openapi.json` is called with generated requests, valid and invalid, against a real
server (`tests.service.running_server`) over the test PostgreSQL; each answer must be no 5xx, an error
in the contract's shape, or an answer matching its declared schema. `make test` runs a bounded,
derandomized number of examples per route; `make fuzz` runs many more (`--fuzz-examples`).
"""
