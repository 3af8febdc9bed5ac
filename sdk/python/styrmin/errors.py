"""The exceptions the primitives raise.

Every one derives from StyrminError, so ``except styrmin.StyrminError`` catches
whatever went wrong between an action and Styrmin. Their ``__module__`` is
``styrmin`` so that an uncaught one reads ``styrmin.TaskFailed: ...`` on the
hook step.
"""


class StyrminError(Exception):
    """A call to Styrmin failed; ``str(error)`` is Styrmin's explanation.

    ``status`` is the HTTP status of Styrmin's answer (400 bad request, 401 no or
    bad action token, 403 another deployment, 404 not found, 409 conflict,
    503 cluster unavailable), or None when Styrmin could not be reached or the
    action does not run through Styrmin.
    """

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status


class Conflict(StyrminError):
    """Styrmin refused the call because of the deployment's state (HTTP 409).

    For example: the Job of an earlier execute_commands call is still running, a
    Job of that name exists that no action created, or an upgrade action asked
    to upgrade its own deployment.
    """


class TaskFailed(StyrminError):
    """The task a primitive started, or that Client.wait waited for, ended failed or canceled.

    ``task`` is its TaskResult (for Client.wait, its ``styrmin.client.Task``):
    ``task.status`` is ``"failed"`` or ``"canceled"``, ``task.message`` says why.
    """

    def __init__(self, task):
        super().__init__(f"task {task.id} ({task.kind}) {task.status}: {task.message or 'no message'}")
        self.task = task


class CommandsFailed(StyrminError):
    """The Job that execute_commands ran failed.

    ``job`` is the Job's name, ``message`` Styrmin's explanation (for example the
    failed command's exit status) and ``tail_lines`` how many lines of the Job's
    output Styrmin stored on the hook step, where every signed-in user, Read-only
    users too, can read them, on the deployment's page and in the API.
    """

    def __init__(self, job, message, tail_lines=0):
        # Styrmin's message names the Job already ("The Job web-job failed: ...").
        super().__init__(message or f"The Job {job} failed.")
        self.job = job
        self.message = message
        self.tail_lines = tail_lines


for _cls in (StyrminError, Conflict, TaskFailed, CommandsFailed):
    _cls.__module__ = "styrmin"
del _cls
