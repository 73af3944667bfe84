"""The dmci package against the dmci tool: values and gradients equal `dmci grad --json`'s bit for bit by every
route and engine on corpus programs, lanes equal the tool's lanes, threads equal one thread, and every error path
raises dmci.Error (or TypeError/ValueError for a bad argument) with the place in the program."""

import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import dmci

ROUTES = ["direct", "dmci", "dmci2", "lantern", "lantern-dmci"]
ENGINES = ["native", "replay", "compiled", "tensor"]
# (corpus file, seed): closed form, recursion, higher-order, branching on the parameters, an iterated map.
PROGRAMS = [
    ("physics/kinetic_energy.scm", {"m": 2.0, "v": 3.0}),
    ("recursion/newton_sqrt.scm", {"a": 2.0}),
    ("higher-order/map_fold.scm", {"x": 1.5}),
    ("lists/insertion_sort.scm", {"x": 0.8, "y": 2.0}),
    ("dynamics/logistic_map_short.scm", {"x0": 0.2, "r": 3.7}),
]
# The dearer engines (a compiler run per trace, LibTorch per process) on the first three programs.
CASES = [(f, s, r, e) for f, s in PROGRAMS for r in ROUTES for e in ENGINES
         if e in ("native", "replay") or f in [p for p, _ in PROGRAMS[:3]]]


def tool_json(tool, args):
    """The tool's --json answer: ("ok", object) or ("error", message)."""
    r = subprocess.run([tool] + args + ["--json"], capture_output=True, text=True, timeout=300)
    out = json.loads(r.stdout.strip().splitlines()[-1])
    if r.returncode != 0:
        return "error", out
    return "ok", out


def as_float(x):
    return float(x)  # a number, or the strings "inf", "-inf", "nan" for the non-finite ones


@pytest.mark.parametrize("file,seed,route,engine", CASES, ids=["%s-%s-%s" % (c[0].split("/")[1][:-4], c[2], c[3])
                                                              for c in CASES])
def test_value_and_gradient_equal_the_tools_bit_for_bit(tool, source_dir, file, seed, route, engine):
    path = os.path.join(source_dir, "corpus", file)
    try:
        prog = dmci.Program(path, route=route, engine=engine)
    except dmci.Error as e:
        status, out = tool_json(tool, ["grad", path, "--via", route, "--engine", engine, "--wrt", ",".join(seed)]
                                + ["--bind=%s=%r" % kv for kv in seed.items()])
        assert status == "error", "the API refused (%s) what the tool ran" % e
        assert out["error"]["message"] in str(e)  # and for the same reason
        return
    assert sorted(prog.names) == sorted(seed)
    params = np.array([seed[n] for n in prog.names])
    binds = ["--bind=%s=%r" % (n, seed[n]) for n in prog.names]
    status, out = tool_json(tool, ["grad", path, "--via", route, "--engine", engine, "--wrt", ",".join(prog.names)]
                            + binds)
    if status == "error":
        with pytest.raises(dmci.Error) as e:
            prog.value_and_grad(params)
        assert out["error"]["message"] in str(e.value)
        return
    value, grad = prog.value_and_grad(params)
    assert value == as_float(out["value"]) or (np.isnan(value) and out["value"] == "nan")
    want = np.array([as_float(out["gradient"][n]) for n in prog.names])
    np.testing.assert_array_equal(grad, want)
    # The same seed as the one lane of a batch, and a second call on the warm handle, give the same bits.
    values, grads = prog.lanes(params[None, :])
    assert values[0] == value and np.array_equal(grads[0], grad)
    value2, grad2 = prog.value_and_grad(params)
    assert value2 == value and np.array_equal(grad2, grad)


@pytest.mark.parametrize("engine", ["native", "replay"])
def test_lanes_equal_the_tools_lanes(tool, source_dir, engine):
    path = os.path.join(source_dir, "corpus", "lists/insertion_sort.scm")
    prog = dmci.Program(path, route="dmci", engine=engine)
    xs = np.linspace(-2.0, 3.0, 9)
    P = np.empty((len(xs), 2))
    P[:, prog.names.index("x")] = xs
    P[:, prog.names.index("y")] = 2.0
    status, out = tool_json(tool, ["grad", path, "--via", "dmci", "--engine", engine, "--wrt", "x,y",
                                   "--bind", "x=linspace(-2,3,9)", "--bind", "y=2"])
    assert status == "ok"
    values, grads = prog.lanes(P)
    np.testing.assert_array_equal(values, np.array(out["value"], dtype=float))
    for k, n in enumerate(prog.names):
        np.testing.assert_array_equal(grads[:, k], np.array(out["gradient"][n], dtype=float))


def test_wrt_leaves_the_others_zero():
    prog = dmci.Program("(* alpha (* x x))", wrt=["x"])
    assert prog.names == ["alpha", "x"]
    value, grad = prog.value_and_grad([2.0, 3.0])
    assert value == 18.0 and list(grad) == [0.0, 12.0]


@pytest.mark.parametrize("route,engine", [("direct", "native"), ("dmci", "replay"), ("direct", "compiled"),
                                          ("lantern", "native")])
def test_literals_equal_the_tools_bit_for_bit(tool, source_dir, route, engine):
    # wrt="all": every parameter, then every numeric literal by position, named and valued as `dmci grad` does.
    path = os.path.join(source_dir, "corpus", "physics/kinetic_energy.scm")
    prog = dmci.Program(path, route=route, engine=engine, wrt="all")
    seed = {"m": 2.0, "v": 3.0}
    status, out = tool_json(tool, ["grad", path, "--via", route, "--engine", engine, "--wrt", "all"]
                            + ["--bind=%s=%r" % kv for kv in seed.items()])
    assert status == "ok"
    assert prog.gradient_names[:2] == prog.names and len(prog.gradient_names) > 2
    assert prog.gradient_names == list(out["gradient"])
    params = np.array([seed[n] for n in prog.names])
    value, grad = prog.value_and_grad(params)
    want = np.array([as_float(out["gradient"][n]) for n in prog.gradient_names])
    assert value == as_float(out["value"])
    np.testing.assert_array_equal(grad, want)
    values, grads = prog.lanes(np.stack([params, params, params]))
    assert grads.shape == (3, len(prog.gradient_names))
    np.testing.assert_array_equal(grads, np.stack([want, want, want]))


def test_literals_alone_leave_the_parameters_zero():
    prog = dmci.Program("(* 2.5 (* x x))", route="direct", wrt="literals")
    assert prog.names == ["x"] and prog.gradient_names == ["x", "<text>:1:4"]
    value, grad = prog.value_and_grad([3.0])
    assert value == 22.5 and list(grad) == [0.0, 9.0]
    values, grads = prog.lanes(np.array([[1.0], [2.0]]), out=(np.empty(2), np.full((2, 2), 5.0)))
    assert list(values) == [2.5, 10.0] and grads.tolist() == [[0.0, 1.0], [0.0, 4.0]]
    with pytest.raises(ValueError):
        prog.value_and_grad([3.0], out=np.empty(1))  # the gradient has 2 entries


def test_wrt_as_a_string_or_a_list():
    for wrt in ("x", ["x"], ("x",)):
        prog = dmci.Program("(* alpha (* x x))", wrt=wrt)
        assert prog.gradient_names == ["alpha", "x"] and list(prog.value_and_grad([2.0, 3.0])[1]) == [0.0, 12.0]
    prog = dmci.Program("(* alpha (* x x))", wrt="x,alpha")
    assert list(prog.value_and_grad([2.0, 3.0])[1]) == [9.0, 12.0]


def test_lanes_write_into_out_without_copies():
    prog = dmci.Program("(* alpha (* x x))")
    P = np.random.default_rng(1).normal(size=(1000, 2))
    values, grads = np.empty(1000), np.empty((1000, 2))
    rv, rg = prog.lanes(P, out=(values, grads))
    assert rv is values and rg is grads
    np.testing.assert_array_equal(values, P[:, 0] * (P[:, 1] * P[:, 1]))
    np.testing.assert_array_equal(grads[:, 0], P[:, 1] * P[:, 1])
    g = np.empty(2)
    _, rg = prog.value_and_grad(P[0], out=g)
    assert rg is g and g[1] == 2 * P[0, 0] * P[0, 1]


def test_lanes_copy_nothing_on_the_python_side():
    # NumPy's allocations are traced: a 1.6 MB batch read in place and written into out= allocates next to
    # nothing in Python; a Fortran-ordered one is copied once, and that shows.
    import tracemalloc
    prog = dmci.Program("(* alpha (* x x))", route="direct")
    P = np.ones((100000, 2))
    out = (np.empty(100000), np.empty((100000, 2)))
    F = np.asfortranarray(P)
    prog.lanes(P, out=out)
    tracemalloc.start()
    prog.lanes(P, out=out)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    prog.lanes(F, out=out)
    _, peak_copied = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20000 and peak_copied > P.nbytes


def test_a_file_opens_by_path(tmp_path):
    f = tmp_path / "quad.scm"
    f.write_text("(* (- a 3) (- a 3))\n")
    for src in (f, str(f)):
        prog = dmci.Program(src)
        assert prog.names == ["a"] and prog.value_and_grad([1.0])[0] == 4.0


@pytest.mark.parametrize("engine", ["native", "replay"])
def test_four_threads_give_what_one_thread_gives(source_dir, engine):
    prog = dmci.Program(os.path.join(source_dir, "corpus", "lists/insertion_sort.scm"), engine=engine)
    rng = np.random.default_rng(7)
    seeds = rng.uniform(-3, 3, size=(200, 2))  # both branches of every comparison
    batches = [rng.uniform(-3, 3, size=(64, 2)) for _ in range(8)]

    def work():
        one = [prog.value_and_grad(s) for s in seeds]
        many = [prog.lanes(b) for b in batches]
        return one, many

    alone = work()
    results, errors = [None] * 4, []

    def thread(i):
        try:
            results[i] = work()
        except Exception as e:  # reported below, with the thread's number
            errors.append((i, e))

    threads = [threading.Thread(target=thread, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for one, many in results:
        for (v, g), (va, ga) in zip(one, alone[0]):
            assert v == va and np.array_equal(g, ga)
        for (v, g), (va, ga) in zip(many, alone[1]):
            assert np.array_equal(v, va) and np.array_equal(g, ga)


def test_fit_recovers_a_rate():
    rng = np.random.default_rng(3)
    x = np.linspace(0, 2, 40)
    y = 1.5 * np.exp(-0.7 * x) + 0.0 * rng.normal(size=40)
    prog = dmci.Program("(* a (exp (- (* k x))))", route="direct")
    fit = prog.fit(data={"x": x, "y": y}, target="y", bind={"a": 1.0, "k": 0.1}, steps=200)
    assert isinstance(fit, dmci.FitResult)
    assert fit.loss < 1e-12
    assert abs(fit.params["a"] - 1.5) < 1e-6 and abs(fit.params["k"] - 0.7) < 1e-6


def test_fit_json_is_the_tools(tool, tmp_path):
    # The same fit by the tool (a CSV file) and by the API (columns): the same object but for where it came from.
    x = np.linspace(0, 1, 10)
    y = 2.0 * x + 1.0
    (tmp_path / "d.csv").write_text("x,y\n" + "".join("%r,%r\n" % (a, b) for a, b in zip(x, y)))
    (tmp_path / "line.scm").write_text("(+ (* w x) c)\n")
    status, out = tool_json(tool, ["fit", str(tmp_path / "line.scm"), "--data", str(tmp_path / "d.csv"),
                                   "--target", "y", "--bind", "w=0", "--bind", "c=0", "--steps", "50"])
    assert status == "ok"
    prog = dmci.Program(tmp_path / "line.scm", route="direct")
    fit = prog.fit(data={"x": x, "y": y}, target="y", bind={"w": 0.0, "c": 0.0}, steps=50)
    assert set(fit.json) == set(out)
    assert fit.params == out["params"] and fit.loss == out["loss"]


def test_fit_names_its_data():
    # A row the program fails on is named by the data's name (data_name, else its columns) and its row number.
    prog = dmci.Program("(if (< x 3) (* a x) (car x))", route="direct", engine="native")
    x = np.arange(5.0)
    for options, name in (({}, "<columns x, y>"), ({"data_name": "trial.npz"}, "trial.npz")):
        with pytest.raises(dmci.Error) as e:
            prog.fit(data={"x": x, "y": x}, target="y", bind={"a": 1.0}, **options)
        assert "at row 4 of the data (%s:4)" % name in str(e.value) and "<text>:1:" in str(e.value), str(e.value)


def test_fit_refuses_a_number_that_is_not_finite():
    prog = dmci.Program("(* a x)", route="direct")
    x = np.arange(5.0)
    y = x.copy()
    y[2] = np.nan
    with pytest.raises(dmci.Error) as e:
        prog.fit(data={"x": x, "y": y}, target="y", bind={"a": 1.0})
    assert e.value.status == "usage" and "row 3 of column 'y' is nan" in str(e.value)


# --- every error path ---

def test_a_syntax_error_names_its_place():
    with pytest.raises(dmci.Error) as e:
        dmci.Program("(+ 1\n   (* x 2)")
    assert e.value.status == "program" and "<text>:" in str(e.value)


def test_a_run_time_error_names_its_place():
    prog = dmci.Program("(+ x (car x))", route="direct", engine="native")
    with pytest.raises(dmci.Error) as e:
        prog.value_and_grad([1.0])
    assert e.value.status == "program" and "<text>:1:" in str(e.value)


def test_a_lane_error_names_the_lane():
    prog = dmci.Program("(if (< x 0) (car x) (* x x))", route="direct", engine="native")
    with pytest.raises(dmci.Error) as e:
        prog.lanes(np.array([[1.0], [2.0], [-1.0], [3.0]]))
    assert "lane 2" in str(e.value) and "<text>:1:" in str(e.value)


def test_a_value_that_is_not_a_number():
    prog = dmci.Program("(list x x)", route="direct", engine="native")
    with pytest.raises(dmci.Error) as e:
        prog.value_and_grad([1.0])
    assert "<text>:1:1" in str(e.value)


@pytest.mark.parametrize("engine", ["native", "replay", "compiled"])
def test_a_tensor_value_in_lanes_names_its_place(engine):
    prog = dmci.Program("(scale x (vec 1 2))", route="direct", engine=engine)
    with pytest.raises(dmci.Error) as e:
        prog.lanes(np.array([[1.0], [2.0]]))
    assert "tensor" in str(e.value) and "<text>:1:1" in str(e.value), str(e.value)


def test_a_spent_budget():
    prog = dmci.Program("(define (f n) (if (< n 1) 0 (+ 1 (f (- n 1))))) (f x)", route="direct", engine="native",
                        max_steps=1000)
    with pytest.raises(dmci.Error) as e:
        prog.value_and_grad([1e6])
    assert e.value.status == "program" and "budget" in str(e.value)
    assert prog.value_and_grad([3.0])[0] == 3.0  # the handle still works after an error


@pytest.mark.parametrize("kwargs,words", [
    ({"route": "sideways"}, "route 'sideways'"),
    ({"engine": "warp"}, "no engine called 'warp'"),
    ({"wrt": ["beta"]}, "wrt 'beta' is not a parameter"),
    ({"wrt": ["x", "x"]}, "named twice"),
    ({"wrt": "literals,all"}, "named twice"),
    ({"threads": -1}, "threads"),
])
def test_bad_options_are_usage_errors(kwargs, words):
    with pytest.raises(dmci.Error) as e:
        dmci.Program("(* x 2)", **kwargs)
    assert e.value.status == "usage" and words in str(e.value)


def test_a_missing_file_is_an_io_error(tmp_path):
    with pytest.raises(dmci.Error) as e:
        dmci.Program(tmp_path / "nowhere.scm")
    assert e.value.status == "io" and "nowhere.scm" in str(e.value)


def test_bad_params_and_out_buffers():
    prog = dmci.Program("(* alpha (* x x))")
    with pytest.raises(ValueError):
        prog.value_and_grad([1.0])
    with pytest.raises(TypeError):
        prog.value_and_grad([1.0, 2.0], out=np.empty(2, dtype=np.float32))
    with pytest.raises(ValueError):
        prog.value_and_grad([1.0, 2.0], out=np.empty(3))
    with pytest.raises(ValueError):
        prog.value_and_grad([1.0, 2.0], out=np.empty(4)[::2])
    g = np.empty(2)
    prog.value_and_grad([1.0, 2.0], out=g)
    g.shape = (1, 2)  # the array the last call wrote into, reshaped: checked again
    with pytest.raises(ValueError):
        prog.value_and_grad([1.0, 2.0], out=g)
    with pytest.raises(ValueError):
        prog.lanes(np.ones((5, 3)))
    with pytest.raises(ValueError):
        prog.lanes(np.ones((0, 2)))
    with pytest.raises(TypeError):
        prog.lanes(np.ones((5, 2)), out=np.empty(5))
    with pytest.raises(TypeError):
        prog.lanes(np.ones((5, 2)), out=(np.empty(5, dtype=np.int64), np.empty((5, 2))))
    with pytest.raises(ValueError):
        prog.lanes(np.ones((5, 2)), out=(np.empty(5), np.empty((2, 5))))
    with pytest.raises(ValueError):
        prog.lanes(np.ones((5, 2)), out=(np.empty(5), np.empty((5, 2), order="F")))


def test_fit_errors():
    prog = dmci.Program("(* a x)", route="direct")
    x = np.arange(5.0)
    with pytest.raises(dmci.Error) as e:
        prog.fit(data={"x": x, "y": x}, target="y", warp=3)
    assert e.value.status == "usage" and "unknown setting 'warp'" in str(e.value)
    with pytest.raises(dmci.Error) as e:
        prog.fit(data={"x": x, "y": x}, target="z", bind={"a": 1.0})
    assert "z" in str(e.value)
    with pytest.raises(dmci.Error) as e:
        prog.fit(data={"x": x, "y": x}, target="y", steps="many")
    assert e.value.status == "usage"
    with pytest.raises(ValueError):
        prog.fit(data={"x": x, "y": x[:3]}, target="y")


def test_the_library_links_no_libtorch():
    out = subprocess.run(["ldd", dmci.library_path()], capture_output=True, text=True, check=True).stdout
    assert "libc.so" in out  # ldd did list the libraries
    assert "torch" not in out and "c10" not in out, out


def test_version():
    assert dmci.version().count(".") == 2


def test_the_installed_tree(build_dir, tmp_path):
    # cmake --install puts the library, the header, the tool, its plugins and this package in Debian's layout;
    # the installed package imports from there and its library finds the tensor engine's plugin in lib/dmci.
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", build_dir, "--prefix", str(prefix)], check=True, capture_output=True)
    for f in ("lib/libdmci.so", "include/dmci.h", "bin/dmci", "lib/python3/dist-packages/dmci/__init__.py",
              "lib/python3/dist-packages/dmci/torch.py"):
        assert (prefix / f).exists(), f
    code = ("import dmci, dmci.torch, torch; p = dmci.Program('(* a (* x x))', engine='tensor', route='direct');"
            "print(dmci.library_path()); print(p.value_and_grad([2.0, 3.0])[0]);"
            "print(dmci.torch.apply(p, torch.tensor([[2.0, 3.0]], dtype=torch.float64)).item())")
    env = dict(os.environ, PYTHONPATH=str(prefix / "lib/python3/dist-packages"), DMCI_ENGINE_PATH="",
               DMCI_LIBRARY="")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    lib, value, torch_value = r.stdout.split()
    assert os.path.realpath(lib) == os.path.realpath(prefix / "lib/libdmci.so")
    assert float(value) == 18.0 and float(torch_value) == 18.0
