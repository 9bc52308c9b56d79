# One image for every nimbase process (migrate, serve, worker); the command picks the role.
FROM python:3.11-slim
WORKDIR /app
ENV PYTHONUNBUFFERED=1 NUMBA_CACHE_DIR=/tmp/numba-cache
COPY pyproject.toml README.md ./
COPY client ./client
COPY nimbase ./nimbase
COPY engine ./engine
COPY storage ./storage
COPY service ./service
COPY worker ./worker
COPY kinds ./kinds
COPY cli ./cli
COPY web ./web
COPY migrations ./migrations
COPY alembic.ini ./
RUN pip install --no-cache-dir ./client -e .
EXPOSE 50051 8080
ENTRYPOINT ["nimbase"]
CMD ["serve"]
