"""One gRPC server for bench.bench_grpc_layers: GetValue served with one more layer of nimbase each time,
so the layers' costs are told apart under the same load.

Layers (the first argument):
- `echo`: a bare grpc.aio server echoing bytes (bench.bench_service's ceiling too);
- `protobuf`: GetValue's request parsed and a constant Value sent (protobuf's share);
- `server`: nimbase's gRPC server (options, health, reflection) with a constant GetValue;
- `wrapper`: the same through the servicer's call wrapper (`_unary`: memory first, errors, metrics);
- `minimal`: the wrapper around only what any lookup must do: the game, the parsed heap, one stored value,
  the answer built directly (no request context, no remoteness, no Value record);
- `uncached`: nimbase's own GetValue, on its gRPC server alone, with the answer cache off (service.answers
  keeps nothing): each call is looked up, as distinct positions are;
- `nimbase`: the same with the answer cache, which answers h2load's repeated request after the first;
- `serve`: the whole process `nimbase serve` runs (service.server.serve: the REST server in the same event
  loop, the malloc arenas capped, the heap trimmed now and then), as bench.bench_service measures it.

Run: `python -m bench.layer_server LAYER PORT DATABASE_URL`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import grpc

from nimbase.v1 import nimbase_pb2 as pb

LAYERS = ("echo", "protobuf", "server", "wrapper", "minimal", "uncached", "nimbase", "serve")
ANSWER = pb.Value(game="subtraction:1,3,4", position="123457", outcome="N", grundy=3, source="table")


async def _echo(request: bytes, context: Any) -> bytes:
    return request


async def _constant(request: pb.GetValueRequest, context: Any) -> pb.Value:
    return ANSWER


def _bare_server(layer: str) -> grpc.aio.Server:
    if layer == "echo":
        handler = grpc.unary_unary_rpc_method_handler(_echo)
        service = grpc.method_handlers_generic_handler("bench.Echo", {"Echo": handler})
    else:
        handler = grpc.unary_unary_rpc_method_handler(
            _constant,
            request_deserializer=pb.GetValueRequest.FromString,
            response_serializer=pb.Value.SerializeToString,
        )
        service = grpc.method_handlers_generic_handler("nimbase.v1.Nimbase", {"GetValue": handler})
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((service,))
    return server


async def _nimbase_server(layer: str, url: str) -> grpc.aio.Server:
    from nimbase.settings import Settings
    from service import grpc_server
    from service.core import Nimbase
    from storage.database import create_engine

    if layer == "uncached":
        os.environ["NIMBASE_CACHE_ANSWER_BYTES"] = "1"  # no answer fits
    service = Nimbase(Settings.from_env(), create_engine(url))

    class Layered(grpc_server.NimbaseServicer):
        async def GetValue(self, request: bytes, context: Any) -> bytes:
            if layer == "server":
                return ANSWER.SerializeToString()
            if layer == "wrapper":
                return await self._unary(
                    "GetValue", context, lambda _: ANSWER.SerializeToString(), memory_first=True
                )

            def minimal(_: object) -> pb.Value:
                message = pb.GetValueRequest.FromString(request)
                kind = service.game(message.game)
                heaps = kind.parse(message.position)
                grundy = service.tables.stored_value(kind.game_id, kind.family, heaps[0])
                text = kind.format(heaps)
                outcome = "N" if grundy else "P"
                return pb.Value(
                    game=kind.game_id, position=text, outcome=outcome, grundy=grundy, source="table"
                )

            answer = await self._unary("GetValue", context, minimal, memory_first=True)
            return answer.SerializeToString()

    if layer not in ("uncached", "nimbase"):
        grpc_server.NimbaseServicer = Layered  # type: ignore[misc]  # what create_grpc_server builds
    server, _ = await grpc_server.create_grpc_server(service)
    return server


async def _serve(port: int, url: str) -> None:
    from nimbase.settings import Settings
    from service.core import Nimbase
    from service.server import serve
    from storage.database import create_engine

    await serve(Nimbase(Settings.from_env(), create_engine(url)), port, 0, "127.0.0.1")


async def main(layer: str, port: int, url: str) -> None:
    if layer == "serve":
        await _serve(port, url)
        return
    server = _bare_server(layer) if layer in ("echo", "protobuf") else await _nimbase_server(layer, url)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in LAYERS:
        sys.exit(f"usage: python -m bench.layer_server {{{','.join(LAYERS)}}} PORT DATABASE_URL")
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
