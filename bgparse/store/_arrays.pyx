# cython: language_level=3
"""Arrow arrays from the store's column lists, written straight into Arrow's buffers by typed
C loops: the typed twin of `pyarrow.array(values, type=kind)` for the column types the turns
table is made of (integers, booleans, strings, the match's 16-byte id, a play's steps).

`pa.array` converts a list of Python values one value at a time through a generic converter
(25-60 ns a value here, 140 ns for a Position ID, 210 ns for a play's steps); these loops
know the one type they fill and the value's Python type, and the column's bytes come out in
a few nanoseconds a value. Where a list holds anything else (a value of another Python type,
out of the column's range, a string that cannot be UTF-8), `typed_array` answers None and
the caller converts with `pa.array`, which stays the reference and the judge of what does
not fit: `bgparse.store.rows._batch`. tests/store/test_arrays.py holds both to the same
arrays. setup.py compiles this module where it can; without it, `pa.array` does all."""

cimport cython
from cpython.bytearray cimport (
    PyByteArray_AS_STRING,
    PyByteArray_FromStringAndSize,
    PyByteArray_Resize,
)
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.string cimport memcpy, memset

import pyarrow as pa

from bgparse.store.schema import TURNS


cdef extern from "Python.h":
    const char *PyUnicode_AsUTF8AndSize(object text, Py_ssize_t *size) except NULL


#: Integer types: (bytes a value, lowest, highest).
_INTS = {
    pa.int8(): (1, -(1 << 7), (1 << 7) - 1),
    pa.int16(): (2, -(1 << 15), (1 << 15) - 1),
    pa.int32(): (4, -(1 << 31), (1 << 31) - 1),
    pa.int64(): (8, -(1 << 63), (1 << 63) - 1),
    pa.uint8(): (1, 0, (1 << 8) - 1),
    pa.uint16(): (2, 0, (1 << 16) - 1),
    pa.uint32(): (4, 0, (1 << 32) - 1),
}
_BOOL = pa.bool_()
_STRING = pa.string()
_UID_STORAGE = pa.binary(16)
#: A play's steps as the turns table stores them (list<struct<src, dst, hit>>).
_STEPS = TURNS.field("steps").type


# The singletons compared by address (in a cast, Cython's `True` would be the C integer 1).
cdef object _TRUE = True
cdef object _FALSE = False
cdef object _NONE = None


def typed_array(values, kind):
    """`values` (a list) as an Arrow array of type `kind`, equal to `pa.array(values,
    type=kind)`; None where this module does not convert that type or that list (the caller
    then uses `pa.array`)."""
    if type(values) is not list:
        return None
    spec = _INTS.get(kind)
    if spec is not None:
        return _ints(<list>values, kind, spec[0], spec[1], spec[2])
    if kind == _STRING:
        return _strings(<list>values)
    if kind == _BOOL:
        return _bools(<list>values)
    if kind == _STEPS:
        return _steps(<list>values, kind)
    if isinstance(kind, pa.BaseExtensionType) and kind.storage_type == _UID_STORAGE:
        storage = _fixed16(<list>values)
        return None if storage is None else pa.ExtensionArray.from_storage(kind, storage)
    return None


cdef inline void _clear(unsigned char *bits, Py_ssize_t i) noexcept:
    bits[i >> 3] &= <unsigned char>~(1 << (i & 7))


cdef inline void _set(unsigned char *bits, Py_ssize_t i) noexcept:
    bits[i >> 3] |= <unsigned char>(1 << (i & 7))


cdef inline bint _null(PyObject *v, unsigned char *valid, Py_ssize_t i,
                       Py_ssize_t *nulls) noexcept:
    """Whether row i's value `v` is None: then its validity bit is cleared and it is counted.
    Every typed loop asks it first of each value."""
    if v != <PyObject *>_NONE:
        return False
    _clear(valid, i)
    nulls[0] += 1
    return True


cdef object _validity(Py_ssize_t n):
    """A validity bitmap of n slots, all valid until a None clears its bit (`_clear`); passed
    on to Arrow only if one did (`_nulls`)."""
    v = PyByteArray_FromStringAndSize(NULL, (n + 7) // 8)
    memset(PyByteArray_AS_STRING(v), 0xFF, (n + 7) // 8)
    return v


cdef inline bint _int_in(PyObject *v, long long lo, long long hi, long long *out) noexcept:
    """Whether v is an exact int within lo-hi (then in out)."""
    cdef int overflow
    if type(<object>v) is not int:
        return False
    out[0] = PyLong_AsLongLongAndOverflow(<object>v, &overflow)
    return not overflow and lo <= out[0] <= hi


cdef object _nulls(object valid, Py_ssize_t nulls):
    """The validity buffer where there are nulls, else none (Arrow's form of "no nulls")."""
    return pa.py_buffer(valid) if nulls else None


@cython.boundscheck(False)
@cython.wraparound(False)
cdef object _ints(list values, object kind, int width, long long lo, long long hi):
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, nulls = 0
    cdef object data = PyByteArray_FromStringAndSize(NULL, n * width)
    cdef char *d = PyByteArray_AS_STRING(data)
    cdef object valid = _validity(n)
    cdef unsigned char *vb = <unsigned char *>PyByteArray_AS_STRING(valid)
    cdef long long x
    cdef PyObject *v
    for i in range(n):
        v = PyList_GET_ITEM(values, i)
        if _null(v, vb, i, &nulls):
            x = 0
        elif not _int_in(v, lo, hi, &x):
            return None
        if width == 1:
            (<int8_t *>d)[i] = <int8_t>x
        elif width == 2:
            (<int16_t *>d)[i] = <int16_t>x
        elif width == 4:
            (<int32_t *>d)[i] = <int32_t>x
        else:
            (<int64_t *>d)[i] = <int64_t>x
    return pa.Array.from_buffers(kind, n, [_nulls(valid, nulls), pa.py_buffer(data)], null_count=nulls)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef object _bools(list values):
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, nulls = 0
    cdef object data = PyByteArray_FromStringAndSize(NULL, (n + 7) // 8)
    cdef unsigned char *d = <unsigned char *>PyByteArray_AS_STRING(data)
    cdef object valid = _validity(n)
    cdef unsigned char *vb = <unsigned char *>PyByteArray_AS_STRING(valid)
    cdef PyObject *v
    memset(d, 0, (n + 7) // 8)
    for i in range(n):
        v = PyList_GET_ITEM(values, i)
        if v == <PyObject *>_TRUE:
            _set(d, i)
        elif v == <PyObject *>_FALSE:
            pass
        elif _null(v, vb, i, &nulls):
            pass
        else:
            return None
    return pa.Array.from_buffers(_BOOL, n, [_nulls(valid, nulls), pa.py_buffer(data)], null_count=nulls)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef object _strings(list values):
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, nulls = 0, size, total = 0
    cdef object offsets = PyByteArray_FromStringAndSize(NULL, (n + 1) * 4)
    cdef int32_t *off = <int32_t *>PyByteArray_AS_STRING(offsets)
    # One pass (each string is read once: the strings are scattered in memory, and reading
    # them is most of the cost), the data buffer grown as it fills.
    cdef Py_ssize_t cap = n * 16 + 64
    cdef object data = PyByteArray_FromStringAndSize(NULL, cap)
    cdef char *d = PyByteArray_AS_STRING(data)
    cdef object valid = _validity(n)
    cdef unsigned char *vb = <unsigned char *>PyByteArray_AS_STRING(valid)
    cdef const char *s
    cdef PyObject *v
    off[0] = 0
    for i in range(n):
        v = PyList_GET_ITEM(values, i)
        if _null(v, vb, i, &nulls):
            pass
        elif type(<object>v) is str:
            try:
                s = PyUnicode_AsUTF8AndSize(<object>v, &size)
            except UnicodeError:  # a lone surrogate: pa.array says what it makes of it
                return None
            if total + size > 0x7FFFFFFF:
                return None
            if total + size > cap:
                cap = 2 * (total + size)
                PyByteArray_Resize(data, cap)
                d = PyByteArray_AS_STRING(data)
            memcpy(d + total, s, size)
            total += size
        else:
            return None
        off[i + 1] = <int32_t>total
    return pa.Array.from_buffers(
        _STRING,
        n,
        [_nulls(valid, nulls), pa.py_buffer(offsets), pa.py_buffer(data)[:total]],
        null_count=nulls,
    )


@cython.boundscheck(False)
@cython.wraparound(False)
cdef object _fixed16(list values):
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, nulls = 0
    cdef object data = PyByteArray_FromStringAndSize(NULL, n * 16)
    cdef char *d = PyByteArray_AS_STRING(data)
    cdef object valid = _validity(n)
    cdef unsigned char *vb = <unsigned char *>PyByteArray_AS_STRING(valid)
    cdef PyObject *v
    for i in range(n):
        v = PyList_GET_ITEM(values, i)
        if _null(v, vb, i, &nulls):
            memset(d + 16 * i, 0, 16)
        elif type(<object>v) is bytes and PyBytes_GET_SIZE(<object>v) == 16:
            memcpy(d + 16 * i, PyBytes_AS_STRING(<object>v), 16)
        else:
            return None
    return pa.Array.from_buffers(
        _UID_STORAGE, n, [_nulls(valid, nulls), pa.py_buffer(data)], null_count=nulls
    )


@cython.boundscheck(False)
@cython.wraparound(False)
cdef object _steps(list values, object kind):
    """A play's steps per row: None (no play) or a list or tuple of (src, dst, hit) tuples."""
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, j, k, nulls = 0, total = 0
    cdef PyObject *v
    cdef PyObject *step
    cdef PyObject *hit
    cdef long long a, b
    # Count the steps first: the child buffers are allocated once.
    for i in range(n):
        v = PyList_GET_ITEM(values, i)
        if v == <PyObject *>_NONE:
            continue
        if type(<object>v) is list:
            total += PyList_GET_SIZE(<object>v)
        elif type(<object>v) is tuple:
            total += PyTuple_GET_SIZE(<object>v)
        else:
            return None
    if total > 0x7FFFFFFF:
        return None
    cdef object offsets = PyByteArray_FromStringAndSize(NULL, (n + 1) * 4)
    cdef int32_t *off = <int32_t *>PyByteArray_AS_STRING(offsets)
    cdef object src = PyByteArray_FromStringAndSize(NULL, total)
    cdef object dst = PyByteArray_FromStringAndSize(NULL, total)
    cdef object hits = PyByteArray_FromStringAndSize(NULL, (total + 7) // 8)
    cdef uint8_t *ps = <uint8_t *>PyByteArray_AS_STRING(src)
    cdef uint8_t *pd = <uint8_t *>PyByteArray_AS_STRING(dst)
    cdef unsigned char *ph = <unsigned char *>PyByteArray_AS_STRING(hits)
    cdef object valid = _validity(n)
    cdef unsigned char *vb = <unsigned char *>PyByteArray_AS_STRING(valid)
    cdef Py_ssize_t m
    cdef bint is_list
    memset(ph, 0, (total + 7) // 8)
    k = 0
    off[0] = 0
    for i in range(n):
        v = PyList_GET_ITEM(values, i)
        if _null(v, vb, i, &nulls):
            off[i + 1] = <int32_t>k
            continue
        is_list = type(<object>v) is list
        m = PyList_GET_SIZE(<object>v) if is_list else PyTuple_GET_SIZE(<object>v)
        for j in range(m):
            step = PyList_GET_ITEM(<object>v, j) if is_list else PyTuple_GET_ITEM(<object>v, j)
            # A step is a tuple (a Step named tuple is one) of src, dst and hit.
            if not isinstance(<object>step, tuple) or PyTuple_GET_SIZE(<object>step) != 3:
                return None
            if not (
                _int_in(PyTuple_GET_ITEM(<object>step, 0), 0, 255, &a)
                and _int_in(PyTuple_GET_ITEM(<object>step, 1), 0, 255, &b)
            ):
                return None
            hit = PyTuple_GET_ITEM(<object>step, 2)
            if hit == <PyObject *>_TRUE:
                _set(ph, k)
            elif hit != <PyObject *>_FALSE:
                return None
            ps[k] = <uint8_t>a
            pd[k] = <uint8_t>b
            k += 1
        off[i + 1] = <int32_t>k
    item = kind.value_type
    children = [
        pa.Array.from_buffers(item.field(0).type, total, [None, pa.py_buffer(src)]),
        pa.Array.from_buffers(item.field(1).type, total, [None, pa.py_buffer(dst)]),
        pa.Array.from_buffers(item.field(2).type, total, [None, pa.py_buffer(hits)]),
    ]
    steps = pa.Array.from_buffers(item, total, [None], children=children)
    return pa.Array.from_buffers(
        kind, n, [_nulls(valid, nulls), pa.py_buffer(offsets)], null_count=nulls, children=[steps]
    )
