from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("id", "name", "description", "position_syntax", "examples", "period", "view")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    POSITION_SYNTAX_FIELD_NUMBER: _ClassVar[int]
    EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    position_syntax: str
    examples: _containers.RepeatedScalarFieldContainer[str]
    period: Period
    view: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., position_syntax: _Optional[str] = ..., examples: _Optional[_Iterable[str]] = ..., period: _Optional[_Union[Period, _Mapping]] = ..., view: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ...) -> None: ...

class GetValueRequest(_message.Message):
    __slots__ = ("game", "position")
    GAME_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    game: str
    position: str
    def __init__(self, game: _Optional[str] = ..., position: _Optional[str] = ...) -> None: ...

class Value(_message.Message):
    __slots__ = ("game", "position", "outcome", "grundy", "remoteness", "source", "bicolor", "lights_out", "graph", "toy", "chess", "score", "misere")
    GAME_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    GRUNDY_FIELD_NUMBER: _ClassVar[int]
    REMOTENESS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    BICOLOR_FIELD_NUMBER: _ClassVar[int]
    LIGHTS_OUT_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    TOY_FIELD_NUMBER: _ClassVar[int]
    CHESS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    MISERE_FIELD_NUMBER: _ClassVar[int]
    game: str
    position: str
    outcome: str
    grundy: int
    remoteness: int
    source: str
    bicolor: BicolorValue
    lights_out: LightsOutValue
    graph: GraphValue
    toy: ToyValue
    chess: ChessValue
    score: ScoreValue
    misere: MisereValue
    def __init__(self, game: _Optional[str] = ..., position: _Optional[str] = ..., outcome: _Optional[str] = ..., grundy: _Optional[int] = ..., remoteness: _Optional[int] = ..., source: _Optional[str] = ..., bicolor: _Optional[_Union[BicolorValue, _Mapping]] = ..., lights_out: _Optional[_Union[LightsOutValue, _Mapping]] = ..., graph: _Optional[_Union[GraphValue, _Mapping]] = ..., toy: _Optional[_Union[ToyValue, _Mapping]] = ..., chess: _Optional[_Union[ChessValue, _Mapping]] = ..., score: _Optional[_Union[ScoreValue, _Mapping]] = ..., misere: _Optional[_Union[MisereValue, _Mapping]] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "job")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    JOB_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    job: Job
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., job: _Optional[_Union[Job, _Mapping]] = ...) -> None: ...

class ValueOrError(_message.Message):
    __slots__ = ("value", "error")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    value: Value
    error: Error
    def __init__(self, value: _Optional[_Union[Value, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ...) -> None: ...

class BestMoveRequest(_message.Message):
    __slots__ = ("game", "position", "limit", "choose", "seed")
    GAME_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    game: str
    position: str
    limit: int
    choose: str
    seed: int
    def __init__(self, game: _Optional[str] = ..., position: _Optional[str] = ..., limit: _Optional[int] = ..., choose: _Optional[str] = ..., seed: _Optional[int] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("move", "position", "outcome", "grundy", "remoteness", "heap_game", "wythoff", "bicolor", "lights_out", "chess", "toy", "score", "best")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    GRUNDY_FIELD_NUMBER: _ClassVar[int]
    REMOTENESS_FIELD_NUMBER: _ClassVar[int]
    HEAP_GAME_FIELD_NUMBER: _ClassVar[int]
    WYTHOFF_FIELD_NUMBER: _ClassVar[int]
    BICOLOR_FIELD_NUMBER: _ClassVar[int]
    LIGHTS_OUT_FIELD_NUMBER: _ClassVar[int]
    CHESS_FIELD_NUMBER: _ClassVar[int]
    TOY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    move: str
    position: str
    outcome: str
    grundy: int
    remoteness: int
    heap_game: HeapMove
    wythoff: WythoffMove
    bicolor: BicolorMove
    lights_out: LightsOutPress
    chess: ChessMove
    toy: ToyMove
    score: ScoreMove
    best: bool
    def __init__(self, move: _Optional[str] = ..., position: _Optional[str] = ..., outcome: _Optional[str] = ..., grundy: _Optional[int] = ..., remoteness: _Optional[int] = ..., heap_game: _Optional[_Union[HeapMove, _Mapping]] = ..., wythoff: _Optional[_Union[WythoffMove, _Mapping]] = ..., bicolor: _Optional[_Union[BicolorMove, _Mapping]] = ..., lights_out: _Optional[_Union[LightsOutPress, _Mapping]] = ..., chess: _Optional[_Union[ChessMove, _Mapping]] = ..., toy: _Optional[_Union[ToyMove, _Mapping]] = ..., score: _Optional[_Union[ScoreMove, _Mapping]] = ..., best: _Optional[bool] = ...) -> None: ...

class BestMoveResponse(_message.Message):
    __slots__ = ("value", "moves", "best_move")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    BEST_MOVE_FIELD_NUMBER: _ClassVar[int]
    value: Value
    moves: _containers.RepeatedCompositeFieldContainer[Move]
    best_move: Move
    def __init__(self, value: _Optional[_Union[Value, _Mapping]] = ..., moves: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., best_move: _Optional[_Union[Move, _Mapping]] = ...) -> None: ...

class MainlineRequest(_message.Message):
    __slots__ = ("game", "position", "max_plies", "metric")
    GAME_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    MAX_PLIES_FIELD_NUMBER: _ClassVar[int]
    METRIC_FIELD_NUMBER: _ClassVar[int]
    game: str
    position: str
    max_plies: int
    metric: str
    def __init__(self, game: _Optional[str] = ..., position: _Optional[str] = ..., max_plies: _Optional[int] = ..., metric: _Optional[str] = ...) -> None: ...

class MainlineResponse(_message.Message):
    __slots__ = ("value", "moves", "end")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    value: Value
    moves: _containers.RepeatedCompositeFieldContainer[Move]
    end: str
    def __init__(self, value: _Optional[_Union[Value, _Mapping]] = ..., moves: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., end: _Optional[str] = ...) -> None: ...

class IsPPositionRequest(_message.Message):
    __slots__ = ("game", "position")
    GAME_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    game: str
    position: str
    def __init__(self, game: _Optional[str] = ..., position: _Optional[str] = ...) -> None: ...

class IsPPositionResponse(_message.Message):
    __slots__ = ("p_position", "value")
    P_POSITION_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    p_position: bool
    value: Value
    def __init__(self, p_position: _Optional[bool] = ..., value: _Optional[_Union[Value, _Mapping]] = ...) -> None: ...

class BatchGetValuesRequest(_message.Message):
    __slots__ = ("game", "positions")
    GAME_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    game: str
    positions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game: _Optional[str] = ..., positions: _Optional[_Iterable[str]] = ...) -> None: ...

class BatchGetValuesResponse(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[ValueOrError]
    def __init__(self, values: _Optional[_Iterable[_Union[ValueOrError, _Mapping]]] = ...) -> None: ...

class ColumnarValuesRequest(_message.Message):
    __slots__ = ("game", "heaps", "offsets")
    GAME_FIELD_NUMBER: _ClassVar[int]
    HEAPS_FIELD_NUMBER: _ClassVar[int]
    OFFSETS_FIELD_NUMBER: _ClassVar[int]
    game: str
    heaps: _containers.RepeatedScalarFieldContainer[int]
    offsets: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, game: _Optional[str] = ..., heaps: _Optional[_Iterable[int]] = ..., offsets: _Optional[_Iterable[int]] = ...) -> None: ...

class ColumnarValuesResponse(_message.Message):
    __slots__ = ("grundy",)
    GRUNDY_FIELD_NUMBER: _ClassVar[int]
    grundy: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, grundy: _Optional[_Iterable[int]] = ...) -> None: ...

class StreamValuesRequest(_message.Message):
    __slots__ = ("game", "position")
    GAME_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    game: str
    position: str
    def __init__(self, game: _Optional[str] = ..., position: _Optional[str] = ...) -> None: ...

class GetSequenceRequest(_message.Message):
    __slots__ = ("game", "family", "start", "stop")
    GAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    game: str
    family: str
    start: int
    stop: int
    def __init__(self, game: _Optional[str] = ..., family: _Optional[str] = ..., start: _Optional[int] = ..., stop: _Optional[int] = ...) -> None: ...

class Period(_message.Message):
    __slots__ = ("preperiod", "period", "saltus", "certified")
    PREPERIOD_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SALTUS_FIELD_NUMBER: _ClassVar[int]
    CERTIFIED_FIELD_NUMBER: _ClassVar[int]
    preperiod: int
    period: int
    saltus: int
    certified: bool
    def __init__(self, preperiod: _Optional[int] = ..., period: _Optional[int] = ..., saltus: _Optional[int] = ..., certified: _Optional[bool] = ...) -> None: ...

class GetSequenceResponse(_message.Message):
    __slots__ = ("game", "family", "start", "stop", "values", "period", "source")
    GAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    game: str
    family: str
    start: int
    stop: int
    values: _containers.RepeatedScalarFieldContainer[int]
    period: Period
    source: str
    def __init__(self, game: _Optional[str] = ..., family: _Optional[str] = ..., start: _Optional[int] = ..., stop: _Optional[int] = ..., values: _Optional[_Iterable[int]] = ..., period: _Optional[_Union[Period, _Mapping]] = ..., source: _Optional[str] = ...) -> None: ...

class GetStatsRequest(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: str
    def __init__(self, game: _Optional[str] = ...) -> None: ...

class GetStatsResponse(_message.Message):
    __slots__ = ("stats",)
    STATS_FIELD_NUMBER: _ClassVar[int]
    stats: _struct_pb2.Struct
    def __init__(self, stats: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Progress(_message.Message):
    __slots__ = ("done", "total")
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    done: int
    total: int
    def __init__(self, done: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...

class Job(_message.Message):
    __slots__ = ("id", "game", "family", "upto", "fill", "status", "progress", "error", "created_at", "started_at", "finished_at", "waits_for", "queued", "stored", "refused")
    ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    UPTO_FIELD_NUMBER: _ClassVar[int]
    FILL_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    WAITS_FOR_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    STORED_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    id: int
    game: str
    family: str
    upto: int
    fill: bool
    status: str
    progress: Progress
    error: str
    created_at: str
    started_at: str
    finished_at: str
    waits_for: _containers.RepeatedScalarFieldContainer[int]
    queued: _containers.RepeatedCompositeFieldContainer[Job]
    stored: StoredObject
    refused: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[int] = ..., game: _Optional[str] = ..., family: _Optional[str] = ..., upto: _Optional[int] = ..., fill: _Optional[bool] = ..., status: _Optional[str] = ..., progress: _Optional[_Union[Progress, _Mapping]] = ..., error: _Optional[str] = ..., created_at: _Optional[str] = ..., started_at: _Optional[str] = ..., finished_at: _Optional[str] = ..., waits_for: _Optional[_Iterable[int]] = ..., queued: _Optional[_Iterable[_Union[Job, _Mapping]]] = ..., stored: _Optional[_Union[StoredObject, _Mapping]] = ..., refused: _Optional[_Iterable[str]] = ...) -> None: ...

class StoredObject(_message.Message):
    __slots__ = ("game", "family", "computed_upto")
    GAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    COMPUTED_UPTO_FIELD_NUMBER: _ClassVar[int]
    game: str
    family: str
    computed_upto: int
    def __init__(self, game: _Optional[str] = ..., family: _Optional[str] = ..., computed_upto: _Optional[int] = ...) -> None: ...

class SubmitJobRequest(_message.Message):
    __slots__ = ("game", "upto", "fill", "family", "men")
    GAME_FIELD_NUMBER: _ClassVar[int]
    UPTO_FIELD_NUMBER: _ClassVar[int]
    FILL_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    MEN_FIELD_NUMBER: _ClassVar[int]
    game: str
    upto: int
    fill: bool
    family: str
    men: int
    def __init__(self, game: _Optional[str] = ..., upto: _Optional[int] = ..., fill: _Optional[bool] = ..., family: _Optional[str] = ..., men: _Optional[int] = ...) -> None: ...

class RetryJobRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class GetJobRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class ListJobsRequest(_message.Message):
    __slots__ = ("limit", "cursor")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    limit: int
    cursor: str
    def __init__(self, limit: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class ListJobsResponse(_message.Message):
    __slots__ = ("jobs", "next_cursor")
    JOBS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    jobs: _containers.RepeatedCompositeFieldContainer[Job]
    next_cursor: str
    def __init__(self, jobs: _Optional[_Iterable[_Union[Job, _Mapping]]] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class CancelJobRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class GraphPart(_message.Message):
    __slots__ = ("name", "terminals", "vertices", "sources", "targets")
    class TerminalsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TERMINALS_FIELD_NUMBER: _ClassVar[int]
    VERTICES_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    name: str
    terminals: _containers.ScalarMap[str, str]
    vertices: _containers.RepeatedScalarFieldContainer[str]
    sources: _containers.RepeatedScalarFieldContainer[str]
    targets: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., terminals: _Optional[_Mapping[str, str]] = ..., vertices: _Optional[_Iterable[str]] = ..., sources: _Optional[_Iterable[str]] = ..., targets: _Optional[_Iterable[str]] = ...) -> None: ...

class GraphSummary(_message.Message):
    __slots__ = ("name", "vertex_count", "edge_count", "terminal_count", "created_at")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERTEX_COUNT_FIELD_NUMBER: _ClassVar[int]
    EDGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    name: str
    vertex_count: int
    edge_count: int
    terminal_count: int
    created_at: str
    def __init__(self, name: _Optional[str] = ..., vertex_count: _Optional[int] = ..., edge_count: _Optional[int] = ..., terminal_count: _Optional[int] = ..., created_at: _Optional[str] = ...) -> None: ...

class GetGraphRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class StringList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[str]] = ...) -> None: ...

class HeapMove(_message.Message):
    __slots__ = ("heap", "to")
    HEAP_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    heap: int
    to: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, heap: _Optional[int] = ..., to: _Optional[_Iterable[int]] = ...) -> None: ...

class WythoffMove(_message.Message):
    __slots__ = ("pair", "to")
    PAIR_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    pair: _containers.RepeatedScalarFieldContainer[int]
    to: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, pair: _Optional[_Iterable[int]] = ..., to: _Optional[_Iterable[int]] = ...) -> None: ...

class BicolorValue(_message.Message):
    __slots__ = ("grundy_black",)
    GRUNDY_BLACK_FIELD_NUMBER: _ClassVar[int]
    grundy_black: int
    def __init__(self, grundy_black: _Optional[int] = ...) -> None: ...

class BicolorMove(_message.Message):
    __slots__ = ("colored_heap", "to", "white_taken", "black_taken", "grundy_black")
    COLORED_HEAP_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    WHITE_TAKEN_FIELD_NUMBER: _ClassVar[int]
    BLACK_TAKEN_FIELD_NUMBER: _ClassVar[int]
    GRUNDY_BLACK_FIELD_NUMBER: _ClassVar[int]
    colored_heap: _containers.RepeatedScalarFieldContainer[int]
    to: _containers.RepeatedScalarFieldContainer[int]
    white_taken: int
    black_taken: int
    grundy_black: int
    def __init__(self, colored_heap: _Optional[_Iterable[int]] = ..., to: _Optional[_Iterable[int]] = ..., white_taken: _Optional[int] = ..., black_taken: _Optional[int] = ..., grundy_black: _Optional[int] = ...) -> None: ...

class LightsOutValue(_message.Message):
    __slots__ = ("solvable", "solution", "note")
    SOLVABLE_FIELD_NUMBER: _ClassVar[int]
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    solvable: bool
    solution: StringList
    note: str
    def __init__(self, solvable: _Optional[bool] = ..., solution: _Optional[_Union[StringList, _Mapping]] = ..., note: _Optional[str] = ...) -> None: ...

class LightsOutPress(_message.Message):
    __slots__ = ("solvable",)
    SOLVABLE_FIELD_NUMBER: _ClassVar[int]
    solvable: bool
    def __init__(self, solvable: _Optional[bool] = ...) -> None: ...

class GraphValue(_message.Message):
    __slots__ = ("note",)
    NOTE_FIELD_NUMBER: _ClassVar[int]
    note: str
    def __init__(self, note: _Optional[str] = ...) -> None: ...

class ChessValue(_message.Message):
    __slots__ = ("dtz", "precise_dtz", "dtm", "category", "checkmate", "stalemate", "insufficient_material")
    DTZ_FIELD_NUMBER: _ClassVar[int]
    PRECISE_DTZ_FIELD_NUMBER: _ClassVar[int]
    DTM_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    CHECKMATE_FIELD_NUMBER: _ClassVar[int]
    STALEMATE_FIELD_NUMBER: _ClassVar[int]
    INSUFFICIENT_MATERIAL_FIELD_NUMBER: _ClassVar[int]
    dtz: int
    precise_dtz: int
    dtm: int
    category: str
    checkmate: bool
    stalemate: bool
    insufficient_material: bool
    def __init__(self, dtz: _Optional[int] = ..., precise_dtz: _Optional[int] = ..., dtm: _Optional[int] = ..., category: _Optional[str] = ..., checkmate: _Optional[bool] = ..., stalemate: _Optional[bool] = ..., insufficient_material: _Optional[bool] = ...) -> None: ...

class ChessMove(_message.Message):
    __slots__ = ("uci", "san", "zeroing", "conversion")
    UCI_FIELD_NUMBER: _ClassVar[int]
    SAN_FIELD_NUMBER: _ClassVar[int]
    ZEROING_FIELD_NUMBER: _ClassVar[int]
    CONVERSION_FIELD_NUMBER: _ClassVar[int]
    uci: str
    san: str
    zeroing: bool
    conversion: bool
    def __init__(self, uci: _Optional[str] = ..., san: _Optional[str] = ..., zeroing: _Optional[bool] = ..., conversion: _Optional[bool] = ...) -> None: ...

class ScoreValue(_message.Message):
    __slots__ = ("margin",)
    MARGIN_FIELD_NUMBER: _ClassVar[int]
    margin: int
    def __init__(self, margin: _Optional[int] = ...) -> None: ...

class ScoreMove(_message.Message):
    __slots__ = ("margin",)
    MARGIN_FIELD_NUMBER: _ClassVar[int]
    margin: int
    def __init__(self, margin: _Optional[int] = ...) -> None: ...

class MisereValue(_message.Message):
    __slots__ = ("element",)
    ELEMENT_FIELD_NUMBER: _ClassVar[int]
    element: int
    def __init__(self, element: _Optional[int] = ...) -> None: ...

class ToyValue(_message.Message):
    __slots__ = ("parity",)
    PARITY_FIELD_NUMBER: _ClassVar[int]
    parity: str
    def __init__(self, parity: _Optional[str] = ...) -> None: ...

class ToyMove(_message.Message):
    __slots__ = ("children",)
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    children: int
    def __init__(self, children: _Optional[int] = ...) -> None: ...
