"""The REST transport: a FastAPI app over the same service layer as gRPC.

Routes only translate query strings and JSON bodies into service calls and results into the JSON
shapes of the public contract. Every failure, a malformed query string included, is answered with
`{"error": {"code", "message"}}` and the HTTP status of its code, never FastAPI's defaults.

Each route declares its answer (`response_model`, the shapes of `nimbase.schema`) and the error
statuses it can give, so `/openapi.json` documents every field. Handlers return `JSONResponse`s built
by `service.convert` directly: the models serve the documentation, nothing is validated per answer.

`app` builds the app (`service.rest.app.create_app`; this face hands on no names, so that a module beside
the routes importing one of its siblings does not build the app); `routes` holds one router per resource;
the modules beside them hold what the routes share: the request models, the parameters, the error answers,
the deadline, the middleware.
"""
