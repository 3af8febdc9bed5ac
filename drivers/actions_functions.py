"""Lists the top-level functions of Python modules for `styrmin driver lint`.

Reads {"path": "source", ...} as JSON on stdin and writes
{"path": {"functions": [...]} or {"error": "..."}, ...} as JSON on stdout.
The modules are parsed with ast, never imported or run.
"""
import ast
import json
import sys

result = {}
for name, source in json.load(sys.stdin).items():
    try:
        tree = ast.parse(source, filename=name)
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", None)
        where = f"line {line}: " if line else ""
        result[name] = {"error": f"{where}{getattr(e, 'msg', str(e))}"}
        continue
    result[name] = {
        "functions": [
            node.name
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
    }
json.dump(result, sys.stdout)
