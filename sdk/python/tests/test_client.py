"""styrmin.Client against a local fake of the REST API (/api/v1): parsing, pagination, errors, wait.

What the real server does is tested by test_client_live.py.
"""

import dataclasses
import datetime
import json
import os
import socket
import ssl
import threading
import typing
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import styrmin
from styrmin import client as api

TOKEN = "stp_test-token-0123456789"
# A scripted "status" that drops the connection without answering.
DROP = "drop"
TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")
UTC = datetime.timezone.utc
# The REST API's document, which docs/openapi.json holds as the server serves it.
OPENAPI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "openapi.json")


class FakeAPI:
    """A fake REST API: answers from a script of (status, body[, headers]) per "METHOD path", records requests.

    path excludes the query string, which is recorded as a dict. A status of
    DROP closes the connection without an answer. With tls (an
    ssl.SSLContext), it serves https.
    """

    def __init__(self, tls=None):
        self.requests = []
        self.answers = {}
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self._answer()

            do_POST = do_PATCH = do_DELETE = do_GET

            def log_message(self, *args):
                pass

            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                url = urlsplit(self.path)
                key = f"{self.command} {url.path}"
                with fake.lock:
                    fake.requests.append({
                        "key": key,
                        "query": {k: v[0] for k, v in parse_qs(url.query).items()},
                        "auth": self.headers.get("Authorization"),
                        "type": self.headers.get("Content-Type"),
                        "body": json.loads(raw) if raw and self.headers.get("Content-Type") == "application/json" else raw or None,
                    })
                    script = fake.answers.get(key) or [(404, problem(404, "not_found", f"no route {key}"))]
                    status, body, *more = script.pop(0) if len(script) > 1 else script[0]
                if status == DROP:
                    self.close_connection = True
                    return
                if status == 204:
                    self.send_response(204)
                    self.end_headers()
                    return
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                kind = "application/problem+json" if status >= 400 and not isinstance(body, bytes) else "application/json"
                self.send_header("Content-Type", kind if not isinstance(body, bytes) else "text/html")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (more[0] if more else {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        scheme = "http"
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def answer(self, key, *script):
        """Answer key ("POST /deployments") with the (status, body[, headers]) in turn, the last one forever."""
        method, path = key.split(" ", 1)
        self.answers[f"{method} /api/v1{path}"] = list(script)

    def keys(self):
        return [r["key"] for r in self.requests]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def problem(status, code, detail, fields=None):
    """Return problem details as Styrmin writes them."""
    p = {"type": "about:blank", "title": "Title", "status": status, "detail": detail, "code": code}
    if fields is not None:
        p["fields"] = fields
    return p


def task(id=7, status="queued", ended=False, kind="install", **extra):
    """Return a task as the API writes it."""
    t = {
        "id": id, "deployment": "demo", "kind": kind, "status": status, "message": "", "inputs": {},
        "by": "ops", "created_at": "2026-12-02T18:00:00.123456789Z", "started_at": None, "ended_at": None,
        "ended": ended, "steps": [], "result": None,
    }
    t.update(extra)
    return t


def summary(name):
    return {"name": name, "version": "1.0.0", "title": name.title(), "summary": "", "labels": {}, "versions": 1}


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeAPI()
        self.addCleanup(self.fake.close)
        self.client = styrmin.Client(self.fake.url + "/", TOKEN, timeout=5)

    def test_me_sends_the_token_and_parses_the_user(self):
        self.fake.answer("GET /me", (200, {
            "id": 3, "username": "ada", "role": "operator", "disabled": False,
            "created_at": "2026-12-02T18:19:50Z", "favourite_colour": "green",
        }))
        me = self.client.me()
        self.assertEqual(api.User(3, "ada", "operator", False, datetime.datetime(2026, 12, 2, 18, 19, 50, tzinfo=UTC)), me)
        self.assertEqual("Bearer " + TOKEN, self.fake.requests[0]["auth"])

    def test_a_url_with_the_api_prefix_is_the_same_server(self):
        self.assertEqual(self.fake.url, styrmin.Client(self.fake.url + "/api/v1/", TOKEN).url)

    def test_the_token_is_never_in_the_repr(self):
        self.assertNotIn(TOKEN, repr(self.client))
        self.assertNotIn(TOKEN, repr(self.client.__dict__.get("url")))

    def test_a_client_needs_a_url_and_a_token(self):
        with self.assertRaises(ValueError):
            styrmin.Client("", TOKEN)
        with self.assertRaises(ValueError):
            styrmin.Client(self.fake.url, "")

    def test_date_times_parse_as_go_writes_them(self):
        self.assertEqual(datetime.datetime(2026, 12, 2, 18, 0, 0, 123456, tzinfo=UTC), api.parse_time("2026-12-02T18:00:00.123456789Z"))
        self.assertEqual(datetime.datetime(2026, 12, 2, 16, 0, tzinfo=UTC), api.parse_time("2026-12-02T18:00:00+02:00"))
        self.assertEqual(datetime.datetime(2026, 12, 2, 18, 0, 0, 500000, tzinfo=UTC), api.parse_time("2026-12-02T18:00:00.5Z"))
        self.assertIsNone(api.parse_time(None))
        with self.assertRaises(ValueError):
            api.parse_time("yesterday")

    def test_a_task_parses_with_its_steps_logs_and_linked_tasks(self):
        step = {
            "id": 11, "position": 2, "kind": "hook", "title": "Back up", "status": "failed", "message": "failed",
            "action": "backup", "mode": "blocking", "error": "CommandsFailed: Job backup-1 failed: exit 2",
            "job": "backup-1", "job_tail": "pg_dump: error\n", "job_tail_lines": 1,
            "started_at": "2026-12-02T18:00:01Z", "ended_at": "2026-12-02T18:00:09Z",
            "logs": [{"level": "ERROR", "message": "dump failed", "at": "2026-12-02T18:00:08Z", "source": "stderr"}],
            "tasks": [task(id=8, kind="stop", status="succeeded", ended=True, parent_step_id=11)],
            "brand_new_field": {"x": 1},
        }
        self.fake.answer("GET /tasks/7", (200, task(status="failed", ended=True, steps=[step], queue_position=0)))
        t = self.client.task(7)
        self.assertEqual(7, t.id)
        self.assertFalse(t.succeeded)
        (failed,) = t.failed_steps()
        self.assertEqual("pg_dump: error\n", failed.job_tail)
        self.assertEqual(datetime.datetime(2026, 12, 2, 18, 0, 9, tzinfo=UTC), failed.ended_at)
        self.assertEqual(api.LogLine("ERROR", "dump failed", datetime.datetime(2026, 12, 2, 18, 0, 8, tzinfo=UTC)), failed.logs[0])
        self.assertEqual(11, failed.tasks[0].parent_step_id)
        self.assertIsInstance(failed.tasks[0], api.Task)

    def test_a_tasks_inputs_read_as_the_class_of_its_kind(self):
        prompts = {"backup": {"label": "nightly"}}
        cases = [
            ("install", {"driver_version": "1.0.0", "app_version": "16.4.0", "namespace": "db", "parameters": {"replicas": 2}, "prompts": prompts},
             api.InstallInputs("1.0.0", "16.4.0", "db", {"replicas": 2}, prompts)),
            ("upgrade", {"from_driver_version": "1.0.0", "driver_version": "1.1.0", "from_app_version": "16.4.0", "app_version": "16.6.0",
                         "parameters": {"replicas": 3}, "changed": ["replicas"], "prompts": {}},
             api.UpgradeInputs("1.0.0", "1.1.0", "16.4.0", "16.6.0", {"replicas": 3}, ["replicas"], {})),
            ("rollback", {"revision": 2, "driver_version": "1.0.0", "app_version": "16.4.0"}, api.RollbackInputs(2, "1.0.0", "16.4.0")),
            ("stop", {"components": ["web"]}, api.StopInputs(["web"])),
            ("start", {"components": []}, api.StartInputs([])),
            ("delete", {"prompts": prompts}, api.DeleteInputs(prompts)),
            ("action", {"action": "flush", "prompts": {"confirm": "yes"}}, api.ActionInputs("flush", {"confirm": "yes"})),
            ("reconcile", {}, api.ReconcileInputs()),
        ]
        self.assertEqual(sorted(api.TASK_INPUTS), sorted(kind for kind, _, _ in cases))
        for kind, inputs, want in cases:
            self.fake.answer("GET /tasks/7", (200, task(kind=kind, inputs=dict(inputs, kind=kind))))
            t = self.client.task(7)
            self.assertEqual(want, t.typed_inputs, kind)
            self.assertEqual(kind, t.inputs["kind"], "inputs as the API answered them")
            self.assertEqual("", t.inputs_unread)

        unread = "The stored rollback inputs could not all be read: revision holds a JSON string."
        self.fake.answer("GET /tasks/7", (200, task(kind="rollback", inputs_unread=unread,
                                                    inputs={"kind": "rollback", "revision": 0, "driver_version": "1.0.0", "app_version": ""})))
        t = self.client.task(7)
        self.assertEqual(unread, t.inputs_unread)
        self.assertEqual(api.RollbackInputs(0, "1.0.0", ""), t.typed_inputs, "the fields that did read")

        self.fake.answer("GET /tasks/7", (200, task(kind="restart", inputs={"kind": "restart", "components": []})))
        self.assertIsNone(self.client.task(7).typed_inputs, "a kind this client does not know")

    def test_the_inputs_classes_are_the_documents_schemas(self):
        with open(OPENAPI) as f:
            schemas = json.load(f)["components"]["schemas"]
        mapping = schemas["TaskInputs"]["discriminator"]["mapping"]
        self.assertEqual(sorted(mapping), sorted(api.TASK_INPUTS))
        for kind, ref in mapping.items():
            schema = schemas[ref.rsplit("/", 1)[1]]
            fields = [f.name for f in dataclasses.fields(api.TASK_INPUTS[kind])]
            self.assertEqual(sorted(set(schema["properties"]) - {"kind"}), sorted(fields), kind)
            self.assertEqual(sorted(set(schema["required"]) - {"kind"}), sorted(fields), kind)

    def test_the_drift_classes_are_the_documents_schemas(self):
        with open(OPENAPI) as f:
            schemas = json.load(f)["components"]["schemas"]
        for cls in (api.Drift, api.DriftedObject, api.DriftedField, api.UncheckedObject):
            with self.subTest(cls.__name__):
                schema = schemas[cls.__name__]
                fields = dataclasses.fields(cls)
                self.assertEqual(sorted(schema["properties"]), sorted(f.name for f in fields))
                required = [f.name for f in fields
                            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
                self.assertEqual(sorted(schema["required"]), sorted(required), "optional fields have a default")

    def test_drift_is_read_and_accepted(self):
        changed = {"api_version": "apps/v1", "kind": "Deployment", "name": "demo-web", "namespace": "demo",
                   "change": "changed", "resource_version": "812",
                   "fields": [{"path": "spec.replicas", "want": "2", "have": "5"}], "fields_left_out": 0}
        drifted = {"word": "Drifted", "revision": 3, "checked": 4, "objects": [changed], "accepted": [],
                   "unchecked": [{"api_version": "v1", "kind": "Namespace", "name": "demo", "why": "forbidden"}],
                   "checked_at": "2026-12-06T04:00:00Z"}
        self.fake.answer("GET /deployments/demo/drift", (200, drifted))
        self.fake.answer("POST /deployments/demo/drift/accept",
                         (200, dict(drifted, word="Synced", objects=[], accepted=[changed])))
        self.fake.answer("POST /deployments/calm/drift/accept",
                         (409, {"title": "Conflict", "status": 409, "detail": "There is no drift to accept.", "code": "ECONFLICT"}))

        d = self.client.drift("demo")
        self.assertTrue(d.drifted)
        self.assertEqual([api.DriftedField("spec.replicas", "2", "5")], d.objects[0].fields)
        self.assertEqual(("demo", "812"), (d.objects[0].namespace, d.objects[0].resource_version))
        self.assertEqual("", d.unchecked[0].namespace)
        self.assertEqual(datetime.datetime(2026, 12, 6, 4, 0, tzinfo=UTC), d.checked_at)

        accepted = self.client.accept_drift("demo")
        self.assertFalse(accepted.drifted)
        self.assertEqual(["demo-web"], [o.name for o in accepted.accepted])
        self.assertEqual(("POST /api/v1/deployments/demo/drift/accept", None), (self.fake.requests[-1]["key"], self.fake.requests[-1]["body"]))
        with self.assertRaises(styrmin.Conflict) as refused:
            self.client.accept_drift("calm")
        self.assertEqual("There is no drift to accept.", refused.exception.detail)

    def test_a_deployment_parses_with_components_and_revisions(self):
        self.fake.answer("GET /deployments/demo", (200, {
            "name": "demo", "namespace": "demo", "driver": "hello-web", "driver_version": "1.0.0", "app_version": "1.27.0",
            "status": "deployed", "busy": False, "created_by": "ops",
            "created_at": "2026-12-01T10:00:00Z", "updated_at": "2026-12-02T10:00:00Z", "deleted_at": None,
            "last_task": {"id": 4, "kind": "upgrade", "status": "succeeded", "by": "ops", "created_at": "2026-12-02T09:59:00Z"},
            "parameters": {"replicas": 2}, "secrets_set": ["password"],
            "components": {"web": {"stopped": False, "ready": "2/2"}},
            "revisions": [{"revision": 2, "status": "deployed", "driver_version": "1.0.0", "app_version": "1.27.0", "updated_at": "2026-12-02T10:00:00Z"}],
        }))
        d = self.client.deployment("demo")
        self.assertIsInstance(d, api.DeploymentSummary)
        self.assertEqual({"web": api.ComponentState(stopped=False, ready="2/2")}, d.components)
        self.assertEqual(2, d.revisions[0].revision)
        self.assertEqual("", d.revisions[0].description)
        self.assertEqual(4, d.last_task.id)
        self.assertIsNone(d.deleted_at)
        self.assertEqual("", d.cluster_error)
        self.assertEqual("", d.release_missing)

    def test_path_segments_are_escaped(self):
        self.fake.answer("GET /drivers/a%2Fb/versions/1.0.0%2Bx", (200, {
            "name": "a/b", "version": "1.0.0+x", "digest": "sha256:0", "created_at": "2026-12-02T18:00:00Z",
            "created_by": "ops", "readme": "# A", "spec": {"version": "1.0.0+x"},
        }))
        v = self.client.driver_version("a/b", "1.0.0+x")
        self.assertEqual({"version": "1.0.0+x"}, v.spec)

    def test_driver_permissions_are_listed_and_approved(self):
        needs = {"bindings": [{"binding": "ClusterRoleBinding", "role_kind": "ClusterRole", "role_name": "cluster-admin",
                               "subject_kind": "ServiceAccount"}]}
        pending = {"items": [{"text": "binds ClusterRoleBinding of ClusterRole cluster-admin to the chart's ServiceAccount",
                              "approved": False}], "needs": needs}
        self.fake.answer("GET /drivers/granter/versions/1.0.0", (200, {
            "name": "granter", "version": "1.0.0", "digest": "sha256:0", "created_at": "2026-12-02T18:00:00Z",
            "created_by": "ops", "readme": "", "spec": {}, "permissions": pending,
        }))
        extra = {"rules": [{"role": "ClusterRole", "resource": "nodes", "verb": "list"}]}
        approved = dict(pending, approved=dict(needs, **extra), approved_by="root", approved_at="2026-12-04T12:00:00Z",
                        items=[dict(pending["items"][0], approved=True),
                               {"text": "grants ClusterRole: list nodes (core)", "approved": True, "beyond_defaults": True}])
        self.fake.answer("POST /drivers/granter/versions/1.0.0/permissions/approve", (200, approved))

        p = self.client.driver_permissions("granter", "1.0.0")
        self.assertEqual(["binds ClusterRoleBinding of ClusterRole cluster-admin to the chart's ServiceAccount"], p.pending)
        self.assertIsNone(p.approved)
        self.assertEqual(needs, p.needs)

        p = self.client.approve_driver_permissions("granter", "1.0.0")
        self.assertIsNone(self.fake.requests[-1]["body"], "no body approves the defaults")
        self.assertEqual([], p.pending)
        self.assertEqual("root", p.approved_by)

        p = self.client.approve_driver_permissions("granter", "1.0.0", items=extra)
        self.assertEqual({"items": extra}, self.fake.requests[-1]["body"])
        self.assertTrue(p.items[1].beyond_defaults)
        self.assertEqual(datetime.datetime(2026, 12, 4, 12, tzinfo=UTC), p.approved_at)

    def test_pages_and_iterators_follow_next_cursor(self):
        self.fake.answer(
            "GET /drivers",
            (200, {"items": [summary("a"), summary("b")], "next_cursor": "c1"}),
            (200, {"items": [summary("c")], "next_cursor": ""}),
        )
        self.assertEqual(["a", "b", "c"], [d.name for d in self.client.drivers(q="web")])
        self.assertEqual([{"q": "web"}, {"q": "web", "cursor": "c1"}], [r["query"] for r in self.fake.requests])

        page = self.client.list_drivers(cursor="c1", limit=1)
        self.assertEqual(api.Page([api.DriverSummary("c", "1.0.0", "C", "", {}, 1)], ""), page)
        self.assertEqual({"cursor": "c1", "limit": "1"}, self.fake.requests[-1]["query"])

    def test_the_audit_log_pages_with_its_filters(self):
        entry = {
            "id": 3, "at": "2026-12-02T18:00:00Z", "action": "deployment.install", "outcome": "refused",
            "reason": "No such driver.", "detail": {"name": "web"},
            "actor": {"name": "ada", "via": "api-token", "role": "operator", "address": "", "user_id": 4, "token_id": 12},
            "target": {"kind": "deployment", "name": "shop"},
        }
        self.fake.answer("GET /audit", (200, {"items": [entry], "next_cursor": "c1"}), (200, {"items": [], "next_cursor": ""}))
        since = datetime.datetime(2026, 12, 1, tzinfo=UTC)
        entries = list(self.client.iter_audit(actor="ada", action="deployment", outcome="refused", since=since))
        self.assertEqual(1, len(entries))
        e = entries[0]
        self.assertEqual(api.AuditActor("ada", "api-token", "operator", "", 4, 12), e.actor)
        self.assertEqual(api.AuditTarget("deployment", "shop"), e.target)
        self.assertEqual(("refused", "No such driver."), (e.outcome, e.reason))
        self.assertEqual(datetime.datetime(2026, 12, 2, 18, 0, tzinfo=UTC), e.at)
        query = {"actor": "ada", "action": "deployment", "outcome": "refused", "since": "2026-12-01T00:00:00+00:00"}
        self.assertEqual([query, dict(query, cursor="c1")], [r["query"] for r in self.fake.requests])

    def test_list_filters_are_sent_as_query_parameters(self):
        self.fake.answer("GET /tasks", (200, {"items": [task()], "next_cursor": ""}))
        self.fake.answer("GET /deployments", (200, {"items": [], "next_cursor": ""}))
        self.assertEqual([7], [t.id for t in self.client.tasks(deployment="demo", status="failed", kind="install")])
        self.assertEqual([], self.client.deployments(include_deleted=True))
        self.assertEqual([], self.client.deployments())
        self.assertEqual(
            [{"deployment": "demo", "status": "failed", "kind": "install"}, {"include_deleted": "true"}, {}],
            [r["query"] for r in self.fake.requests],
        )

    def test_changes_send_their_body_and_return_the_accepted_task(self):
        accepted = (202, {"task": task(), "url": "/api/v1/tasks/7"})
        for key in ("POST /deployments", "POST /deployments/demo/upgrade", "POST /deployments/demo/rollback",
                    "POST /deployments/demo/stop", "POST /deployments/demo/start", "POST /deployments/demo/reconcile", "DELETE /deployments/demo",
                    "POST /deployments/demo/actions/fetch_page"):
            self.fake.answer(key, accepted)
        calls = [
            (lambda: self.client.install("hello-web", "1.0.0", "demo", parameters={"replicas": 3}),
             {"driver": "hello-web", "driver_version": "1.0.0", "name": "demo", "parameters": {"replicas": 3}}),
            (lambda: self.client.upgrade("demo", app_version="1.27.1", prompts={"backup": {"label": "x"}}),
             {"app_version": "1.27.1", "prompts": {"backup": {"label": "x"}}}),
            (lambda: self.client.rollback("demo", 1), {"revision": 1}),
            (lambda: self.client.stop("demo", components=["web"]), {"components": ["web"]}),
            (lambda: self.client.start("demo"), {}),
            (lambda: self.client.reconcile("demo"), None),
            (lambda: self.client.delete("demo"), None),
            (lambda: self.client.run_action("demo", "fetch_page", prompts={"path": "/"}), {"prompts": {"path": "/"}}),
        ]
        for call, body in calls:
            with self.subTest(body=body):
                t = call()
                self.assertIsInstance(t, api.Task)
                self.assertEqual(7, t.id)
                self.assertEqual(body, self.fake.requests[-1]["body"])
                self.assertEqual({}, self.fake.requests[-1]["query"])

    def test_a_dry_run_upgrade_returns_the_review(self):
        self.fake.answer("POST /deployments/demo/upgrade", (200, {
            "from_driver_version": "1.0.0", "driver_version": "1.0.1", "from_app_version": "1.27.0", "app_version": "1.27.0",
            "changes": [{"name": "replicas", "title": "Replicas", "change": "changed", "secret": False, "from": "2", "to": "3"}],
            "resources": [{"kind": "Deployment", "name": "demo-web", "change": "changed", "diff": "-  replicas: 2\n+  replicas: 3\n"}],
            "prompts": [{"action": "backup", "hook": "pre-upgrade", "name": "label", "title": "Label", "value": "nightly", "secret": False, "set": True}],
        }))
        review = self.client.upgrade("demo", driver_version="1.0.1", parameters={"replicas": 3}, dry_run=True)
        self.assertIsInstance(review, api.UpgradeReview)
        self.assertEqual(api.PromptValue("backup", "pre-upgrade", "label", "Label", "nightly", False, True), review.prompts[0])
        self.assertEqual(api.ParameterChange("replicas", "Replicas", "changed", False, "2", "3"), review.changes[0])
        self.assertEqual("", review.resources[0].namespace)
        self.assertEqual("", review.dry_run_error)
        self.assertEqual({"dry_run": "true"}, self.fake.requests[-1]["query"])

    def test_review_upgrade_is_the_dry_run(self):
        self.fake.answer("POST /deployments/demo/upgrade", (200, {
            "from_driver_version": "1.0.0", "driver_version": "1.0.1",
            "changes": [], "resources": [], "dry_run_error": "",
            "some_future_field": {"x": 1},
        }))
        review = self.client.review_upgrade("demo", driver_version="1.0.1", prompts={"ok": True})
        self.assertIsInstance(review, api.UpgradeReview)
        self.assertEqual("1.0.1", review.driver_version)
        self.assertEqual({"dry_run": "true"}, self.fake.requests[-1]["query"])
        self.assertEqual({"driver_version": "1.0.1", "prompts": {"ok": True}}, self.fake.requests[-1]["body"])

    def test_users_and_tokens(self):
        user = {"id": 5, "username": "bob", "role": "read-only", "disabled": True, "created_at": "2026-12-02T18:00:00Z"}
        tok = {"id": 9, "name": "ci", "username": "bob", "created_at": "2026-12-02T18:00:00Z", "expires_at": None, "last_used_at": None}
        self.fake.answer("GET /users", (200, {"items": [user]}))
        self.fake.answer("POST /users", (201, user))
        self.fake.answer("PATCH /users/5", (200, user))
        self.fake.answer("GET /tokens", (200, {"items": [tok]}))
        self.fake.answer("POST /tokens", (201, dict(tok, token="stp_secret", expires_at="2027-01-01T00:00:00Z")))
        self.fake.answer("DELETE /tokens/9", (204, None))

        self.assertEqual(["bob"], [u.username for u in self.client.users()])
        self.assertEqual(5, self.client.create_user("bob", "read-only", "a long password").id)
        self.assertEqual({"username": "bob", "role": "read-only", "password": "a long password"}, self.fake.requests[-1]["body"])
        self.client.update_user(5, disabled=True)
        self.assertEqual({"disabled": True}, self.fake.requests[-1]["body"])
        self.assertIsNone(self.client.tokens(user="bob")[0].expires_at)
        self.assertEqual({"user": "bob"}, self.fake.requests[-1]["query"])
        created = self.client.create_token("ci", expires_at=datetime.datetime(2027, 1, 1, tzinfo=UTC))
        self.assertEqual({"name": "ci", "expires_at": "2027-01-01T00:00:00+00:00"}, self.fake.requests[-1]["body"])
        self.assertIsInstance(created, api.APIToken)
        self.assertEqual("stp_secret", created.token)
        self.assertNotIn("stp_secret", repr(created))
        self.assertIsNone(self.client.revoke_token(9))
        with self.assertRaises(ValueError):
            self.client.create_token("ci", expires_at=datetime.datetime(2027, 1, 1))

    def test_webhooks(self):
        hook = {"id": 3, "url": "https://hooks.example/", "events": ["failed"], "deployments": ["shop"], "kinds": [],
                "format": "json", "created_by": "olga", "created_at": "2026-12-04T12:00:00Z"}
        delivery = {"id": 8, "task_id": 41, "event": "failed", "status": "delivered", "attempts": 2, "status_code": 200,
                    "error": "", "duration_ms": 12, "created_at": "2026-12-04T12:00:00Z", "attempted_at": "2026-12-04T12:00:01Z"}
        log = [{"attempt": 1, "status_code": 500, "error": "the receiver answered 500", "duration_ms": 30, "attempted_at": "2026-12-04T12:00:00Z"},
               {"attempt": 2, "status_code": 200, "error": "", "duration_ms": 12, "attempted_at": "2026-12-04T12:00:01Z"}]
        self.fake.answer("GET /webhooks", (200, {"items": [hook]}))
        self.fake.answer("PATCH /webhooks/3", (200, dict(hook, url="https://hooks.example/v2")))
        self.fake.answer("POST /webhooks", (201, hook))
        self.fake.answer("GET /webhooks/3", (200, dict(hook, deliveries=[dict(delivery, attempt_log=log)])))
        self.fake.answer("POST /webhooks/3/deliveries/8/redeliver", (202, dict(delivery, id=9, status="pending", redelivery_of=8)))
        self.fake.answer("DELETE /webhooks/3", (204, None))

        self.assertEqual(["shop"], self.client.webhooks()[0].deployments)
        self.assertEqual(3, self.client.create_webhook("https://hooks.example/", "a secret of 16+ chars", ["failed"], deployments=["shop"]).id)
        self.assertEqual({"url": "https://hooks.example/", "secret": "a secret of 16+ chars", "events": ["failed"], "deployments": ["shop"]},
                         self.fake.requests[-1]["body"])
        got = self.client.webhook(3)
        self.assertEqual([200], [d.status_code for d in got.deliveries])
        self.assertEqual([(1, 500), (2, 200)], [(a.attempt, a.status_code) for a in got.deliveries[0].attempt_log])
        self.assertEqual("https://hooks.example/v2", self.client.update_webhook(3, url="https://hooks.example/v2", secret="a new secret of 16+").url)
        self.assertEqual({"url": "https://hooks.example/v2", "secret": "a new secret of 16+"}, self.fake.requests[-1]["body"])
        again = self.client.redeliver(3, 8)
        self.assertEqual((9, 8), (again.id, again.redelivery_of))
        self.assertIsNone(self.client.delete_webhook(3))

    def test_problems_raise_the_exception_of_their_code(self):
        cases = [
            (400, "invalid", styrmin.Invalid),
            (401, "unauthorized", styrmin.Unauthorized),
            (403, "forbidden", styrmin.Forbidden),
            (404, "not_found", styrmin.NotFound),
            (409, "conflict", styrmin.client.Conflict),
            (429, "throttled", styrmin.Throttled),
            (500, "internal", styrmin.ServerError),
            (503, "unavailable", styrmin.Unavailable),
            (418, "teapot", styrmin.APIError),
        ]
        for status, code, cls in cases:
            with self.subTest(code=code):
                self.fake.answer("GET /me", (status, problem(status, code, f"It is {code}.")))
                with self.assertRaises(cls) as caught:
                    self.client.me()
                err = caught.exception
                self.assertIs(cls, type(err))
                self.assertEqual(f"It is {code}.", str(err))
                self.assertEqual((status, code, "Title", {}), (err.status, err.code, err.title, err.fields))
                self.assertIsInstance(err, styrmin.StyrminError)

    def test_an_invalid_problem_carries_its_fields(self):
        self.fake.answer("POST /deployments", (400, problem(400, "invalid", "Check the highlighted fields.", {"param.replicas": "0 is less than the minimum 1"})))
        with self.assertRaises(styrmin.Invalid) as caught:
            self.client.install("hello-web", "1.0.0", "demo", parameters={"replicas": 0})
        self.assertEqual({"param.replicas": "0 is less than the minimum 1"}, caught.exception.fields)

    def test_a_conflict_is_also_the_primitives_conflict(self):
        self.fake.answer("POST /deployments/demo/stop", (409, problem(409, "conflict", "Task 3 holds demo.")))
        with self.assertRaises(styrmin.Conflict) as caught:
            self.client.stop("demo")
        self.assertIsInstance(caught.exception, styrmin.APIError)

    def test_an_error_answer_without_problem_details_maps_by_status(self):
        self.fake.answer("GET /me", (404, b"<html>nginx: not found</html>"))
        with self.assertRaises(styrmin.NotFound) as caught:
            self.client.me()
        self.assertEqual("not_found", caught.exception.code)
        self.assertIn("404", str(caught.exception))
        self.assertIn("nginx: not found", str(caught.exception))

    def test_a_success_that_is_not_json_is_an_api_error(self):
        self.fake.answer("GET /me", (200, b"<html>a login page</html>"))
        with self.assertRaisesRegex(styrmin.APIError, "not JSON: <html>a login page"):
            self.client.me()

    def test_an_unreachable_server_is_a_network_error(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        c = styrmin.Client(f"http://127.0.0.1:{port}", TOKEN, timeout=2)
        with self.assertRaises(styrmin.ConnectionFailed) as caught:
            c.me()
        self.assertIsInstance(caught.exception, styrmin.APIError)
        self.assertIsInstance(caught.exception, styrmin.NetworkError)
        self.assertEqual("connection_failed", caught.exception.code)
        self.assertIn("cannot reach Styrmin at http://127.0.0.1:", str(caught.exception))
        self.assertIn("GET /api/v1/me", str(caught.exception))
        self.assertNotIn(TOKEN, str(caught.exception))
        self.assertIsNone(caught.exception.status)

    def test_wait_polls_until_the_task_ends(self):
        self.fake.answer(
            "GET /tasks/7",
            (200, task(status="queued")),
            (200, task(status="running")),
            (200, task(status="succeeded", ended=True, ended_at="2026-12-02T18:01:00Z")),
        )
        done = self.client.wait(api.decode(api.Task, task()), poll=0.01, timeout=5)
        self.assertEqual("succeeded", done.status)
        self.assertEqual(["GET /api/v1/tasks/7"] * 3, self.fake.keys())

    def test_wait_raises_task_failed_with_the_task(self):
        for status in ("failed", "canceled"):
            with self.subTest(status=status):
                self.fake.answer("GET /tasks/7", (200, task(status=status, ended=True, message="the hook failed")))
                with self.assertRaises(styrmin.TaskFailed) as caught:
                    self.client.wait(7, poll=0.01)
                self.assertEqual(status, caught.exception.task.status)
                self.assertIn("the hook failed", str(caught.exception))
                self.assertEqual(status, self.client.wait(7, raise_on_failure=False).status)

    def test_wait_times_out(self):
        self.fake.answer("GET /tasks/7", (200, task(status="running", message="waiting for pods")))
        with self.assertRaises(TimeoutError) as caught:
            self.client.wait(7, timeout=0.1, poll=0.02)
        self.assertEqual("running", caught.exception.task.status)
        self.assertIn("waiting for pods", str(caught.exception))

    def test_wait_takes_only_tasks_and_ids(self):
        with self.assertRaises(TypeError):
            self.client.wait(None)

    def test_upload_driver_sends_the_archive_and_returns_the_version(self):
        version = {"name": "sample", "version": "2.0.0", "digest": "sha256:ab", "created_at": "2026-12-02T18:00:00Z",
                   "created_by": "ada", "readme": "", "spec": {}}
        self.fake.answer("POST /drivers", (201, version))
        got = self.client.upload_driver(b"\x1f\x8b archive")
        self.assertEqual(("sample", "2.0.0"), (got.name, got.version))
        self.assertEqual("application/octet-stream", self.fake.requests[0]["type"])
        self.assertEqual(b"\x1f\x8b archive", self.fake.requests[0]["body"])
        with self.assertRaises(TypeError):
            self.client.upload_driver("bundle.tar.gz")

        refusal = problem(400, "invalid", "The driver bundle breaks the driver contract (1 problem)")
        refusal["problems"] = [{"file": "driver.styrmin.yml", "line": 7, "column": 12, "field": "spec.version", "message": "not a version"}]
        self.fake.answer("POST /drivers", (400, refusal))
        with self.assertRaises(styrmin.Invalid) as caught:
            self.client.upload_driver(b"archive")
        self.assertIn("\n  driver.styrmin.yml:7:12: spec.version: not a version", str(caught.exception))

    def test_cancel_task(self):
        self.fake.answer("POST /tasks/7/cancel", (200, task(status="canceled", ended=True)))
        self.assertEqual("canceled", self.client.cancel_task(7).status)


class ExportTest(unittest.TestCase):
    def test_the_package_exports_the_client_and_its_errors(self):
        for name in ("Client", "Page", "APIError", "Invalid", "Unauthorized", "Forbidden", "NotFound",
                     "Throttled", "Unavailable", "ServerError", "NetworkError", "ConnectionFailed"):
            self.assertIs(getattr(api, name), getattr(styrmin, name), name)
            self.assertIn(name, styrmin.__all__)

    def test_every_public_method_has_a_docstring(self):
        for name in dir(styrmin.Client):
            if not name.startswith("_"):
                self.assertTrue(getattr(styrmin.Client, name).__doc__, name)


USER = {"id": 3, "username": "ada", "role": "operator", "disabled": False, "created_at": "2026-12-02T18:19:50Z"}


class RetryTest(unittest.TestCase):
    """A 429, a 503 or a dropped connection is tried again, within bounds; nothing else is."""

    def setUp(self):
        self.fake = FakeAPI()
        self.addCleanup(self.fake.close)
        self.sleeps = []

    def client(self, **options):
        c = styrmin.Client(self.fake.url, TOKEN, timeout=5, **options)
        c._sleep = self.sleeps.append
        return c

    def test_a_503_is_tried_again_after_its_retry_after(self):
        self.fake.answer("GET /me", (503, problem(503, "unavailable", "restarting"), {"Retry-After": "3"}), (200, USER))
        self.assertEqual("ada", self.client().me().username)
        self.assertEqual(["GET /api/v1/me"] * 2, self.fake.keys())
        self.assertEqual([3.0], self.sleeps)

    def test_a_retry_after_date_is_honoured(self):
        when = datetime.datetime.now(UTC) + datetime.timedelta(seconds=20)
        date = when.strftime("%a, %d %b %Y %H:%M:%S GMT")
        self.fake.answer("GET /me", (429, problem(429, "throttled", "slow down"), {"Retry-After": date}), (200, USER))
        self.client().me()
        self.assertEqual(1, len(self.sleeps))
        self.assertTrue(15 <= self.sleeps[0] <= 21, self.sleeps)

    def test_retries_are_bounded_in_number_and_wait(self):
        self.fake.answer("POST /deployments/demo/stop", (429, problem(429, "throttled", "slow down"), {"Retry-After": "3600"}))
        with self.assertRaises(styrmin.Throttled) as caught:
            self.client(retries=2, max_backoff=7).stop("demo")
        self.assertEqual("slow down", caught.exception.detail)
        self.assertEqual(3, len(self.fake.requests), "one try and two retries")
        self.assertEqual([7.0, 7.0], self.sleeps, "a Retry-After past max_backoff waits max_backoff")

    def test_without_retry_after_the_wait_doubles(self):
        self.fake.answer("GET /me", (503, b"<html>proxy: no upstream</html>"))
        with self.assertRaises(styrmin.Unavailable):
            self.client(retries=3, backoff=2, max_backoff=5).me()
        self.assertEqual(3, len(self.sleeps))
        first, second, third = self.sleeps
        self.assertTrue(1 <= first <= 2, self.sleeps)
        self.assertTrue(2 <= second <= 4, self.sleeps)
        self.assertTrue(4 <= third <= 5, "8 s with jitter, cut to max_backoff: %s" % self.sleeps)

    def test_other_errors_are_not_tried_again(self):
        for status, code in ((400, "invalid"), (404, "not_found"), (409, "conflict"), (500, "internal")):
            self.fake.requests.clear()
            self.fake.answer("GET /me", (status, problem(status, code, "no")))
            with self.assertRaises(styrmin.APIError):
                self.client().me()
            self.assertEqual(1, len(self.fake.requests), status)
        self.assertEqual([], self.sleeps)

    def test_a_dropped_connection_is_tried_again_for_a_read_only(self):
        self.fake.answer("GET /me", (DROP, None), (200, USER))
        self.assertEqual("ada", self.client().me().username)
        self.assertEqual(2, len(self.fake.requests))

        self.fake.requests.clear()
        self.fake.answer("POST /deployments/demo/stop", (DROP, None), (202, {"task": task(kind="stop"), "url": "/api/v1/tasks/7"}))
        with self.assertRaises(styrmin.ConnectionFailed):
            self.client().stop("demo")
        self.assertEqual(1, len(self.fake.requests), "a POST the server may have done is not sent twice")

    def test_no_retries_when_asked(self):
        self.fake.answer("GET /me", (503, problem(503, "unavailable", "down")))
        with self.assertRaises(styrmin.Unavailable):
            self.client(retries=0).me()
        self.assertEqual(1, len(self.fake.requests))

    def test_bad_retry_settings_are_refused(self):
        for options in ({"retries": -1}, {"backoff": -1}, {"max_backoff": -1}):
            with self.assertRaises(ValueError):
                styrmin.Client(self.fake.url, TOKEN, **options)


class TLSTest(unittest.TestCase):
    """An https server of a private CA is trusted through cafile or ssl_context, and only then."""

    def setUp(self):
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(os.path.join(TESTDATA, "server.pem"), os.path.join(TESTDATA, "server.key"))
        self.fake = FakeAPI(tls=tls)
        self.addCleanup(self.fake.close)
        self.fake.answer("GET /me", (200, USER))
        self.ca = os.path.join(TESTDATA, "ca.pem")

    def test_an_unknown_ca_is_refused_without_a_retry(self):
        c = styrmin.Client(self.fake.url, TOKEN, timeout=5)
        c._sleep = self.fail
        with self.assertRaisesRegex(styrmin.ConnectionFailed, "CERTIFICATE_VERIFY_FAILED"):
            c.me()

    def test_cafile_trusts_the_private_ca(self):
        self.assertEqual("ada", styrmin.Client(self.fake.url, TOKEN, timeout=5, cafile=self.ca).me().username)

    def test_ssl_context_trusts_the_private_ca(self):
        context = ssl.create_default_context(cafile=self.ca)
        self.assertEqual("ada", styrmin.Client(self.fake.url, TOKEN, timeout=5, ssl_context=context).me().username)

    def test_cafile_and_ssl_context_together_are_refused(self):
        with self.assertRaisesRegex(ValueError, "not both"):
            styrmin.Client(self.fake.url, TOKEN, cafile=self.ca, ssl_context=ssl.create_default_context())


class TypingTest(unittest.TestCase):
    def test_every_public_method_says_what_it_returns(self):
        for name in dir(styrmin.Client):
            member = getattr(styrmin.Client, name)
            if name.startswith("_") or not callable(member):
                continue
            self.assertIn("return", typing.get_type_hints(member), name)
        self.assertIs(api.User, typing.get_type_hints(styrmin.Client.me)["return"])

    def test_the_package_ships_py_typed(self):
        package = os.path.dirname(os.path.abspath(styrmin.__file__))
        self.assertTrue(os.path.isfile(os.path.join(package, "py.typed")))
        try:
            import tomllib
        except ImportError:  # Python before 3.11
            self.skipTest("reading pyproject.toml needs tomllib (Python 3.11)")
        with open(os.path.join(package, "..", "pyproject.toml"), "rb") as f:
            project = tomllib.load(f)
        self.assertIn("py.typed", project["tool"]["setuptools"]["package-data"]["styrmin"])


if __name__ == "__main__":
    unittest.main()
