"""PostgreSQL storage: engine, migrations, packed sequences and the job queue."""
