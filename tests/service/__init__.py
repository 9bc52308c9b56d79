"""In-process tests of the service layer: a real `Nimbase` over the test PostgreSQL, called directly
(test_core) or through the real gRPC and REST servers on loopback (test_concurrency), and the transports
themselves over a fake service with fixed answers (fake_service); no subprocess."""
