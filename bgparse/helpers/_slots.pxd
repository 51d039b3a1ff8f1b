# The fields of bgparse's slotted classes (the events' and Position's frozen dataclasses) read
# and filled in C by the typed modules (readers/_cells.pyx, replay/_plain.pyx,
# rules/_speedups.pyx): a field is stored at a fixed offset in the object, which its member
# descriptor names. `obj.field` from C goes through the type's attribute look-up (a dictionary
# search of the class and its bases, then the descriptor's call) for the same pointer.
#
# Only for an object whose type is exactly the class the offset was taken from (a subclass may
# put a property in front of the slot): callers check `type(obj) is Cls` first.

from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF

cdef extern from "structmember.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
    int T_OBJECT_EX

cdef extern from "Python.h":
    ctypedef struct PyMemberDescrObject:
        PyMemberDef *d_member
    PyTypeObject PyMemberDescr_Type


cdef inline Py_ssize_t slot_offset(type cls, str name) except -1:
    """Where `cls` stores its slot `name`; an ImportError (so the importing module's Python
    original is used) where that is not a plain object slot of `cls` itself."""
    descr = cls.__dict__.get(name)
    if descr is None or (<PyObject *> descr).ob_type is not &PyMemberDescr_Type:
        raise ImportError(f"{cls.__name__}.{name} is not a slot")
    cdef PyMemberDef *member = (<PyMemberDescrObject *> <PyObject *> descr).d_member
    if member.type != T_OBJECT_EX:
        raise ImportError(f"{cls.__name__}.{name} is not an object slot")
    return member.offset


cdef inline object slot_get(object obj, Py_ssize_t offset):
    """The field at `offset` of `obj`, or None where it was never set (where reading it
    would raise AttributeError: callers treat both as "not this case")."""
    cdef PyObject *value = (<PyObject **> ((<char *> <PyObject *> obj) + offset))[0]
    if value is NULL:
        return None
    return <object> value


cdef inline void slot_fill(object obj, Py_ssize_t offset, object value):
    """Fills an empty slot of a newly allocated object (what the descriptor's store does)."""
    Py_INCREF(value)
    (<PyObject **> ((<char *> <PyObject *> obj) + offset))[0] = <PyObject *> value
