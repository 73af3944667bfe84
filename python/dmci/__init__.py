"""DMCI from Python: a program's value and exact gradient, by lanes, and its fit to data.

A thin client of libdmci.so's C API (dmci.h) written with ctypes and NumPy only, so it needs no compiled
extension and runs with any Python 3 that has NumPy. A Program is opened once (read, expanded, prepared on an
engine) and then called as often as wanted; one Program may be called from many threads at once (each call
releases the GIL, and the library gives each concurrent call its own per-evaluation state).

    import dmci, numpy as np
    p = dmci.Program("(* alpha (* x x))")
    value, grad = p.value_and_grad([2.0, 3.0])       # p.names == ["alpha", "x"]
    values, grads = p.lanes(np.random.rand(1000, 2))  # B x p in, B values and B x p gradients out

With wrt="literals" (or "all", or a list naming "literals") the gradient also has an entry per numeric literal
of the program, after the parameters: p.gradient_names names them ("<text>:1:4").
"""

import ctypes
import json
import os
import threading

import numpy as np

__all__ = ["Program", "FitResult", "Error", "version", "library_path"]

_STATUS = {1: "usage", 2: "program", 3: "io", 4: "internal"}


class Error(RuntimeError):
    """An error from DMCI: `status` is "usage", "program", "io" or "internal"; the message names the place
    in the program (file:line:col) when the error has one."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = _STATUS.get(status, str(status))


class _Options(ctypes.Structure):
    _fields_ = [
        ("route", ctypes.c_char_p),
        ("engine", ctypes.c_char_p),
        ("wrt", ctypes.c_char_p),
        ("max_steps", ctypes.c_uint64),
        ("max_heap", ctypes.c_uint64),
        ("max_seconds", ctypes.c_double),
        ("threads", ctypes.c_int32),
    ]


def _candidates():
    """Where libdmci.so may be: $DMCI_LIBRARY, the build tree (BUILD/python/dmci -> BUILD), an installed tree
    (PREFIX/lib/python3/dist-packages/dmci -> PREFIX/lib), then the loader's own search. In an installed tree the
    library is looked for by its SONAME (libdmci.so.0) first: Debian's libdmci0 has only that name, and the
    unversioned libdmci.so comes with libdmci-dev."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("DMCI_LIBRARY")
    if env:
        return [env]
    return [
        os.path.join(here, "..", "..", "libdmci.so"),
        os.path.join(here, "..", "..", "..", "libdmci.so.0"),
        os.path.join(here, "..", "..", "..", "libdmci.so"),
        "libdmci.so.0",
        "libdmci.so",
    ]


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            # Global, so that the plugins the library opens (the tensor engine) bind to its symbols.
            return ctypes.CDLL(os.path.normpath(path), mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("dmci: cannot find libdmci.so (tried %s); set DMCI_LIBRARY to its path" % ", ".join(tried))


_lib = _load()
_P = ctypes.c_void_p
_ERR = ctypes.POINTER(ctypes.c_void_p)
_lib.dmci_version.restype = ctypes.c_char_p
_lib.dmci_api_version.restype = ctypes.c_int32
_lib.dmci_open_text.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_Options), _ERR, _ERR]
_lib.dmci_open_file.argtypes = [ctypes.c_char_p, ctypes.POINTER(_Options), _ERR, _ERR]
_lib.dmci_param_count.argtypes = [_P]
_lib.dmci_param_count.restype = ctypes.c_int64
_lib.dmci_param_name.argtypes = [_P, ctypes.c_int64]
_lib.dmci_param_name.restype = ctypes.c_char_p
_lib.dmci_gradient_count.argtypes = [_P]
_lib.dmci_gradient_count.restype = ctypes.c_int64
_lib.dmci_gradient_name.argtypes = [_P, ctypes.c_int64]
_lib.dmci_gradient_name.restype = ctypes.c_char_p
_lib.dmci_value_gradient.argtypes = [_P, _P, _P, _P, _P]
_lib.dmci_lanes.argtypes = [_P, ctypes.c_int64, _P, _P, _P, _P]
_lib.dmci_fit.argtypes = [_P, ctypes.c_int64, _P, _P, ctypes.c_int64, ctypes.c_char_p, ctypes.c_char_p, _ERR, _ERR]
_lib.dmci_free.argtypes = [_P]
_lib.dmci_free.restype = None
_lib.dmci_string_free.argtypes = [_P]
_lib.dmci_string_free.restype = None
for _f in ("dmci_open_text", "dmci_open_file", "dmci_value_gradient", "dmci_lanes", "dmci_fit"):
    getattr(_lib, _f).restype = ctypes.c_int32
_value_gradient = _lib.dmci_value_gradient
_F64 = np.dtype(np.float64)

_API_VERSION = 2  # dmci.h's DMCI_API_VERSION this package is written for: a library of that version or later
if _lib.dmci_api_version() < _API_VERSION:
    raise ImportError("dmci: libdmci.so speaks C API version %d, this package needs %d or later"
                      % (_lib.dmci_api_version(), _API_VERSION))


def version():
    """The library's version."""
    return _lib.dmci_version().decode()


def library_path():
    """The libdmci.so this package loaded."""
    return _lib._name


def _take_string(ptr):
    text = ctypes.string_at(ptr).decode("utf-8", "replace")
    _lib.dmci_string_free(ptr)
    return text


def _check(status, err):
    if status != 0:
        raise Error(status, _take_string(err.value) if err.value else "dmci: error %d" % status)


def _buffer(out, shape, what):
    """`out` as a buffer of this shape: float64, C-contiguous and writable, or a ValueError/TypeError."""
    if not isinstance(out, np.ndarray):
        raise TypeError("%s: a numpy.ndarray, got %s" % (what, type(out).__name__))
    if out.dtype != np.float64:
        raise TypeError("%s: dtype float64, got %s" % (what, out.dtype))
    if out.shape != shape:
        raise ValueError("%s: shape %s, got %s" % (what, shape, out.shape))
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("%s: a C-contiguous, writable array" % what)
    return out


class FitResult:
    """A fit's result: the object `dmci fit --json` prints (`json`), with its main fields as attributes."""

    def __init__(self, obj):
        self.json = obj
        self.loss = obj.get("loss")
        self.params = obj.get("params", {})
        self.literals = obj.get("literals", {})
        self.converged = obj.get("converged")
        self.iterations = obj.get("iterations")

    def __repr__(self):
        return "FitResult(loss=%r, params=%r, converged=%r)" % (self.loss, self.params, self.converged)


class Program:
    """A program opened once: `src_or_path` is its text, or a path (an os.PathLike, or a string naming a file
    that exists or ending in .scm). route: direct, dmci, dmci2, lantern, lantern-dmci; engine: native, replay,
    compiled, tensor. wrt: what is differentiated, as `dmci grad --wrt`: parameter names, "literals" (every
    numeric literal) or "all" (every parameter and literal), a list or a comma-separated string (default: every
    parameter). The gradient has an entry per parameter (0 for one not in wrt), then, with literals, one per
    literal's position: `gradient_names`."""

    def __init__(self, src_or_path, route="dmci", engine="replay", wrt=None, max_steps=0, max_heap=0,
                 max_seconds=0.0, threads=0):
        self._h = None
        if wrt is not None and not isinstance(wrt, str):
            wrt = ",".join(wrt)
        opts = _Options(route.encode(), engine.encode(), wrt.encode() if wrt is not None else None, max_steps,
                        max_heap, max_seconds, threads)
        h, err = ctypes.c_void_p(), ctypes.c_void_p()
        text = os.fspath(src_or_path)
        if isinstance(src_or_path, os.PathLike) or text.endswith(".scm") or os.path.isfile(text):
            status = _lib.dmci_open_file(text.encode(), ctypes.byref(opts), ctypes.byref(h), ctypes.byref(err))
        else:
            status = _lib.dmci_open_text(text.encode(), b"<text>", ctypes.byref(opts), ctypes.byref(h),
                                         ctypes.byref(err))
        _check(status, err)
        self._h = h.value
        self.route, self.engine = route, engine
        self.names = [_lib.dmci_param_name(self._h, i).decode() for i in range(_lib.dmci_param_count(self._h))]
        self._p = len(self.names)
        self.gradient_names = [_lib.dmci_gradient_name(self._h, i).decode()
                               for i in range(_lib.dmci_gradient_count(self._h))]
        self._g = len(self.gradient_names)
        self._local = threading.local()  # each thread's call buffers (see _buffers)

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.dmci_free(self._h)
            self._h = None

    def __repr__(self):
        return "dmci.Program(names=%r, route=%r, engine=%r)" % (self.names, self.route, self.engine)

    def _params(self, params, shape):
        a = np.ascontiguousarray(params, dtype=np.float64)
        if a.shape != shape:
            raise ValueError("params: shape %s (the parameters %s), got %s" % (shape, self.names, a.shape))
        return a

    def _buffers(self):
        """This thread's buffers for one seed: the parameters, the value, the gradient and the error, as ctypes
        objects whose addresses are taken once (asking NumPy for an array's address costs microseconds, more
        than the call), and the last `out` array with its address."""
        b = self._local
        b.params, b.value = (ctypes.c_double * max(1, self._p))(), ctypes.c_double()
        b.grad, b.err = (ctypes.c_double * max(1, self._g))(), ctypes.c_void_p()
        b.params_view = np.frombuffer(b.params, dtype=np.float64, count=self._p)
        b.grad_view = np.frombuffer(b.grad, dtype=np.float64, count=self._g)
        b.addresses = (ctypes.addressof(b.params), ctypes.addressof(b.value), ctypes.addressof(b.err))
        b.grad_address = ctypes.addressof(b.grad)
        b.out, b.out_address = None, 0
        return b

    def value_and_grad(self, params, out=None):
        """The value and the gradient at one point: params has one number per name. The gradient (an entry per
        gradient_names) goes into `out` (float64, shape (g,)) when given; returns (value, gradient)."""
        b = self._local
        if not hasattr(b, "addresses"):
            b = self._buffers()
        if type(params) is not np.ndarray or params.shape != (self._p,):
            params = self._params(params, (self._p,))
        b.params_view[:] = params
        if out is None:
            g = b.grad_address
        elif out is b.out and out.shape == (self._g,) and out.dtype is _F64:  # as last time: its address known
            g = b.out_address
        else:
            b.out, b.out_address = _buffer(out, (self._g,), "out"), out.ctypes.data
            g = b.out_address
        pa, va, ea = b.addresses
        status = _value_gradient(self._h, pa, va, g, ea)
        if status:
            _check(status, b.err)
        return b.value.value, (b.grad_view.copy() if out is None else out)

    def lanes(self, P, out=None):
        """B lanes at once: P is B x p (row b: lane b's parameters). A C-contiguous float64 array is read in
        place, never copied (nor is it in the library: the replay and compiled engines read the rows where they
        lie and write the gradients into `out`'s rows). `out` = (values[B], grads[B x g]), float64, receives the
        result; returns them."""
        P = np.asarray(P)
        if P.ndim != 2 or P.shape[1] != self._p:
            raise ValueError("P: shape (B, %d) (the parameters %s), got %s" % (self._p, self.names, P.shape))
        if P.dtype != np.float64 or not P.flags.c_contiguous:
            P = np.ascontiguousarray(P, dtype=np.float64)
        b = P.shape[0]
        if b < 1:
            raise ValueError("P: at least one lane")
        if out is None:
            values, grads = np.empty(b), np.empty((b, self._g))
        else:
            if not isinstance(out, tuple) or len(out) != 2:
                raise TypeError("out: a tuple (values, grads)")
            values = _buffer(out[0], (b,), "out[0] (values)")
            grads = _buffer(out[1], (b, self._g), "out[1] (grads)")
        err = ctypes.c_void_p()
        status = _lib.dmci_lanes(self._h, b, P.ctypes.data, values.ctypes.data, grads.ctypes.data,
                                 ctypes.addressof(err))
        _check(status, err)
        return values, grads

    def fit(self, data=None, target=None, **options):
        """Fits the program to data: `data` maps column names to equal-length 1-D arrays (the columns bind the
        program's names per row), `target` names the column its value predicts; without them the program's
        value is the loss. Options are dmci fit's: optimizer, steps, restarts, seed, lr, loss, wrt, bind
        ({name: start}), transform, and data_name (the data's name in error messages; default: the columns').
        Returns a FitResult."""
        data = data or {}
        names = list(data)
        cols = [np.ascontiguousarray(data[n], dtype=np.float64) for n in names]
        rows = len(cols[0]) if cols else 0
        for n, c in zip(names, cols):
            if c.ndim != 1 or len(c) != rows:
                raise ValueError("data[%r]: a 1-D column of %d numbers, got shape %s" % (n, rows, c.shape))
        if "wrt" in options and not isinstance(options["wrt"], str):
            options["wrt"] = ",".join(options["wrt"])
        name_arr = (ctypes.c_char_p * max(1, len(names)))(*[n.encode() for n in names])
        col_arr = (ctypes.c_void_p * max(1, len(cols)))(*[c.ctypes.data for c in cols])
        out, err = ctypes.c_void_p(), ctypes.c_void_p()
        status = _lib.dmci_fit(self._h, len(names), ctypes.addressof(name_arr), ctypes.addressof(col_arr), rows,
                               target.encode() if target is not None else None, json.dumps(options).encode(),
                               ctypes.byref(out), ctypes.byref(err))
        text = _take_string(out.value) if out.value else None
        _check(status, err)
        return FitResult(json.loads(text))
