"""Lists the top-level functions of one Python module for `styrmin driver lint`.

Usage: python3 -I -c SCRIPT MEMORY_BYTES CPU_SECONDS < source

Limits its own address space and CPU time first, then reads the module's
source on stdin and writes {"functions": [...]}, {"error": "..."} (not valid
Python) or {"unchecked": "..."} (too deep or large to parse) as JSON on
stdout. The module is parsed with ast, never imported or run.
"""
import ast
import json
import resource
import sys


def limit(kind, value):
    """Lowers the soft and hard limit of kind to value (or the hard limit, when lower)."""
    hard = resource.getrlimit(kind)[1]
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


limit(resource.RLIMIT_AS, int(sys.argv[1]))
limit(resource.RLIMIT_CPU, int(sys.argv[2]))


def check(source):
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", None)
        where = f"line {line}: " if line else ""
        return {"error": f"{where}{getattr(e, 'msg', str(e))}"}
    except (RecursionError, MemoryError):
        return {"unchecked": "it is too deeply nested or too large to parse; simplify it"}
    return {
        "functions": [
            node.name
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
    }


json.dump(check(sys.stdin.buffer.read()), sys.stdout)
