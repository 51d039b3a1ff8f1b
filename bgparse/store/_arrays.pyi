# Types of the compiled column converter (bgparse/store/_arrays.pyx).

from typing import Any

import pyarrow as pa

def typed_array(values: Any, kind: pa.DataType) -> pa.Array | None: ...
