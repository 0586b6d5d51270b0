"""The steady state of parmc.sort, argsort and topk (_sortops.py): for each plan, a function
generated once with its constants in place, as _fast.py does for entries. It checks only
what the plan's key does not say (that x is contiguous, else it takes a contiguous copy; on
CUDA, that x's device is current and has a context), allocates the results in the shape the
program writes them, makes the one foreign call (after setting the caller's stream on CUDA),
shapes the results where the plan says so and names them (plan.named). It returns None when
a check fails, and the plan's own call (which makes the device current and the context)
takes over."""


def build(plan):
    """The run of a plan: x -> its results, or None."""
    if plan.empty:
        return lambda x: plan.empty_result()
    snip = plan.adapter.fast_snippets()
    entry = plan.entry
    prog = entry.program
    env = {**snip["env"], "fn": entry._fn, "prog": prog, "lock": prog._lock, "failed": entry._failed,
           "set_stream": prog._set_stream, "SHAPE": plan.out_shape,
           "move_in": plan.move_in, "finish": plan.finish, "named": plan.named, "dev": plan.device,
           "DEVICE": plan.adapter.device_object(plan.device) if plan.cuda else None}
    lines = ["if current_device() != dev: return None"] if plan.cuda else []
    lines += ["ctx = prog._contexts.get(dev)", "if ctx is None: return None"]
    # any strides: the axis moved last on the host (a copy that takes any strides), else a
    # contiguous copy of x where it is not contiguous (one gather, on x's device, now current)
    xs = "xs"
    if plan.move_in is not None:
        lines.append("xs = move_in(x)")
    else:
        lines.append(f"xs = x if {snip['contiguous'].format(a='x')} else {snip['contiguous_copy'].format(a='x')}")
    names = ["i"] if plan.op == "argsort" else ["v", "i"]    # the results, as plan.dtypes
    for k, (name, dt) in enumerate(zip(names, plan.dtypes)):
        if "empty_from" in snip:    # the results made like a template of theirs, made once
            env[f"T{k}"] = plan.adapter.template(plan.out_shape, dt, plan.device)
            lines.append(f"{name} = {snip['empty_from'].format(t=f'T{k}')}")
        else:
            env[f"D{k}"] = dt
            lines.append(f"{name} = {snip['empty'].format(shape='SHAPE', D=f'D{k}', dev='DEVICE')}")
    value_ptr = _ptr(snip, plan.value_dtype)   # x, and the values
    ptrs = [value_ptr.format(a=xs)] + [(snip["ptr"] if name == "i" else value_ptr).format(a=name) for name in names]
    args = ", ".join(["ctx"] + ptrs + [str(n) for n in plan.tail])
    if prog.cuda:      # (tests/python/fixtures/fake_gpu.py runs CUDA plans on C programs)
        lines += [f"h = {snip['stream']}", "with lock:", "    rc = set_stream(ctx, h)",
                  f"    if rc == 0: rc = fn({args})"]
    else:
        lines += ["with lock:", f"    rc = fn({args})"]
    lines.append("if rc: failed(rc, ctx)")
    shaped = (lambda a: f"finish({a})") if plan.finish is not None else (lambda a: a)
    results = ", ".join(shaped(name) for name in names)
    lines.append(f"return named(({results}))" if plan.named is not None else f"return {results}")
    src = "def run(x):\n" + "".join(f"    {line}\n" for line in lines)
    exec(compile(src, f"<parmc.{plan.op} run of {plan.shape}>", "exec"), env)
    run = env["run"]
    run.source = src
    return run


def _ptr(snip, dtype):
    """The pointer expression for arrays of dtype: NumPy's fast one takes only dtypes that the
    buffer protocol describes."""
    slow = snip.get("ptr_unbuffered")
    if slow is not None:
        try:
            memoryview(snip["env"]["empty"](1, dtype))
        except (ValueError, TypeError):
            return slow
    return snip["ptr"]
