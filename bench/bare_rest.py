"""A bare one-process FastAPI app for bench.bench_service's REST yardstick: GET /v1/value answering, for
each (game, position) it was given, the same JSON body nimbase answered, from a dictionary, on uvicorn with
h11 as nimbase serves it. What a REST lookup costs when the app does nothing but answer.

Run: `python -m bench.bare_rest PORT ANSWERS.json` (a JSON list of [game, position, body]).
"""

from __future__ import annotations

import json
import sys

import uvicorn
from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response


def app_answering(answers: dict[tuple[str, str], object]) -> FastAPI:
    app = FastAPI()

    @app.get("/v1/value")
    async def value(game: str, position: str) -> Response:
        return JSONResponse(answers[(game, position)])

    return app


def main(port: int, path: str) -> None:
    with open(path, encoding="utf-8") as file:
        answers = {(game, position): body for game, position, body in json.load(file)}
    uvicorn.run(app_answering(answers), host="127.0.0.1", port=port, http="h11", log_level="warning")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m bench.bare_rest PORT ANSWERS.json")
    main(int(sys.argv[1]), sys.argv[2])
