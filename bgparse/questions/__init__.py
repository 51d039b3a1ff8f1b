"""Questions asked of the dataset: DuckDB over the committed Parquet (`query`: views and macros
from `pipelines/`, a sandboxed connection), the named statistics (`stats`), the filters every
question takes (`filters`) and what they leave out, said once (`filter_notes`).

Nothing is imported here: `bgparse query` loads DuckDB and `query` alone."""
