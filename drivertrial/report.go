package drivertrial

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// logTail is how many of a failed action's last log lines the report shows.
const logTail = 10

// report writes an ended task as the deployment page shows it: its kind,
// status and duration, then each step with its status and message, and
// under a failed action (best-effort ones too) its error line, its Job's tail and its log's tail;
// the tasks a step started (an action's stop, start or upgrade) below it.
func report(w io.Writer, name string, task *deployment.Task) {
	writeTask(w, "", name, task)
}

// writeTask writes task under name, indented by indent.
func writeTask(w io.Writer, indent, name string, task *deployment.Task) {
	fmt.Fprintf(w, "%s%s (%s task): %s in %s%s\n", indent, name, task.Kind, task.Status, duration(task), suffix(task.Message))
	for _, st := range task.Steps {
		fmt.Fprintf(w, "%s  %s: %s%s\n", indent, st.Title, st.Status, suffix(st.Message))
		if actionFailed(st) {
			writeFailedHook(w, indent+"    ", st)
		}
		for i := range st.Tasks {
			writeTask(w, indent+"    ", "linked "+st.Tasks[i].Kind, &st.Tasks[i])
		}
	}
}

// writeFailedHook writes what a failed action left: its error line (when
// the step's message does not say it already), the tail of its failed Job
// and the tail of its log.
func writeFailedHook(w io.Writer, indent string, st deployment.Step) {
	if st.Hook.Error != "" && st.Hook.Error != st.Message {
		fmt.Fprintf(w, "%serror: %s\n", indent, st.Hook.Error)
	}
	if job := st.Hook.JobDetail; job != nil {
		fmt.Fprintf(w, "%sjob %s: %s\n", indent, job.Job, job.JobMessage)
		for line := range strings.Lines(job.JobTail) {
			fmt.Fprintf(w, "%s  %s\n", indent, strings.TrimSuffix(line, "\n"))
		}
	}
	logs := st.Logs[max(0, len(st.Logs)-logTail):]
	if len(logs) > 0 {
		fmt.Fprintf(w, "%slast %d log lines:\n", indent, len(logs))
	}
	for _, l := range logs {
		fmt.Fprintf(w, "%s  %s %s\n", indent, l.Level, l.Message)
	}
}

// duration is how long the task ran, in tenths of seconds.
func duration(task *deployment.Task) string {
	var d time.Duration
	if task.StartedAt != nil && task.EndedAt != nil {
		d = task.EndedAt.Sub(*task.StartedAt)
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// suffix is ": message", or "" for no message.
func suffix(message string) string {
	if message == "" {
		return ""
	}
	return ": " + message
}

// actionFailed reports whether st is a hook step whose action failed, also
// a best-effort one whose failure the task went past with a warning.
func actionFailed(st deployment.Step) bool {
	return st.Hook != nil && st.Hook.Error != "" && (st.Status == executor.StepFailed || st.Status == executor.StepWarning)
}

// failure says why task failed the trial: the first failed action's error
// line (a best-effort action's too: a deployment goes past it, a trial of
// the driver does not), else the task's message; "" when it succeeded and
// no action failed.
func failure(task *deployment.Task) string {
	for _, st := range task.Steps {
		if actionFailed(st) && st.Status == executor.StepWarning {
			return st.Hook.Error + " (a best-effort action: a deployment goes on, the trial does not)"
		}
		if actionFailed(st) {
			return st.Hook.Error
		}
	}
	if task.Status == executor.TaskSucceeded {
		return ""
	}
	if task.Message == "" {
		return string(task.Status)
	}
	return task.Message
}
