"""The argument rules of the public functions, checked before the native code runs.

A wrong type is a TypeError and a wrong value a ValueError (calcjit.Error for
what the library itself refuses), each naming the function and the argument;
never pybind11's "incompatible function arguments" with its list of C++
signatures. The native functions keep their signatures; the public ones are
these wrappers (installed by __init__.py).
"""

import numbers
import os

ENGINE_OPTIONS = ("backend", "outputs", "isa", "disabled_passes", "block_size",
                  "jit_node_limit", "jit_parallel", "jit_piece_nodes", "reuse_compiled")


def _type_name(value):
    return type(value).__name__


def check_str(where, name, value):
    if not isinstance(value, str):
        raise TypeError(f"{where}(): {name} must be a str, not {_type_name(value)}")
    return value


def check_optional_str(where, name, value):
    return None if value is None else check_str(where, name, value)


def check_count(where, name, value):
    """A non-negative int (numpy integers too; bool is not a count)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}(): {name} must be an int, not {_type_name(value)}")
    if value < 0:
        raise ValueError(f"{where}(): {name} is {value}: it must be 0 or more")
    return int(value)


def check_bool(where, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{where}(): {name} must be True or False, not {_type_name(value)}")
    return value


def check_names(where, name, value):
    """None, one name, or a sequence of names."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{where}(): {name} must be a name or a list of names, "
                        f"not {_type_name(value)}")
    names = list(value)
    for k, item in enumerate(names):
        if not isinstance(item, str):
            raise TypeError(f"{where}(): {name}[{k}] must be a str, not {_type_name(item)}")
    return names


def check_fraction(where, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}(): {name} must be a number, not {_type_name(value)}")
    return float(value)  # its range is the library's rule (calcjit.Error)


def check_set_data(where, name, value):
    if not isinstance(value, (str, bytes)):
        raise TypeError(f"{where}(): {name} must be str (text or JSON) or bytes, "
                        f"not {_type_name(value)}")
    return value


def check_path(where, name, value):
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{where}(): {name} must be a path (str or os.PathLike), "
                        f"not {_type_name(value)}")
    return value


_OPTION_CHECKS = {
    "backend": check_str,
    "outputs": check_names,
    "isa": check_str,
    "disabled_passes": check_names,
    "block_size": check_count,
    "jit_node_limit": check_count,
    "jit_parallel": check_bool,
    "jit_piece_nodes": check_count,
    "reuse_compiled": check_bool,
}


def check_engine_options(where, options):
    """The keyword arguments that make engine options, checked; a name that is
    none of them is the TypeError Python gives for an unexpected keyword."""
    checked = {}
    for key, value in options.items():
        check = _OPTION_CHECKS.get(key)
        if check is None:
            raise TypeError(f"{where}() got an unexpected keyword argument '{key}' "
                            f"(the options are {', '.join(ENGINE_OPTIONS)})")
        checked[key] = check(where, key, value)
    if isinstance(checked.get("disabled_passes"), str):
        checked["disabled_passes"] = [checked["disabled_passes"]]
    return checked
