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


def check_unicode(where, name, value):
    """A str Python can hold but UTF-8 cannot: an unpaired surrogate ('\\ud800')."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{where}(): {name} has an unpaired surrogate "
                         f"(\\u{ord(value[error.start]):04x}) at index {error.start}: "
                         "it is not valid Unicode") from None
    return value


def check_str(where, name, value):
    if not isinstance(value, str):
        raise TypeError(f"{where}(): {name} must be a str, not {_type_name(value)}")
    return check_unicode(where, name, value)


def check_optional_str(where, name, value):
    return None if value is None else check_str(where, name, value)


UINT32_MAX = 2**32 - 1
UINT64_MAX = 2**64 - 1


def check_count(where, name, value, maximum=UINT64_MAX):
    """A non-negative int (numpy integers too; bool is not a count) of at most
    `maximum` (what the native argument holds: Python's ints have no bound)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}(): {name} must be an int, not {_type_name(value)}")
    if value < 0:
        raise ValueError(f"{where}(): {name} is {value}: it must be 0 or more")
    if value > maximum:
        raise ValueError(f"{where}(): {name} is {value}: it must be at most {maximum}")
    return int(value)


def check_count32(where, name, value):
    return check_count(where, name, value, UINT32_MAX)


def check_bool(where, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{where}(): {name} must be True or False, not {_type_name(value)}")
    return value


def check_names(where, name, value):
    """None, one name, or a sequence of names."""
    if value is None:
        return value
    if isinstance(value, str):
        return check_unicode(where, name, value)
    if isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{where}(): {name} must be a name or a list of names, "
                        f"not {_type_name(value)}")
    names = list(value)
    for k, item in enumerate(names):
        if not isinstance(item, str):
            raise TypeError(f"{where}(): {name}[{k}] must be a str, not {_type_name(item)}")
        check_unicode(where, f"{name}[{k}]", item)
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
    # A NUL would cut the path short in the C library: refused, as os.open does.
    if "\0" in os.fsdecode(value):
        raise ValueError(f"{where}(): {name} contains a NUL character")
    return value


_OPTION_CHECKS = {
    "backend": check_str,
    "outputs": check_names,
    "isa": check_str,
    "disabled_passes": check_names,
    "block_size": check_count32,
    "jit_node_limit": check_count,
    "jit_parallel": check_bool,
    "jit_piece_nodes": check_count32,
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
