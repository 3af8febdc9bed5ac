package api

import (
	"context"
	"maps"
	"strings"

	"github.com/styrmin/styrmin"
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// The API's changes of deployments: each checks its request through the
// deployment service, as the pages do, and answers 202 with the task it
// queued (taskAccepted).

// taskAccepted is the answer to a change queued as a task: the task as it
// is now and its URL, which the Location header repeats.
func (s *Server) taskAccepted(ctx context.Context, q *deployment.Queued) (oapi.TaskAcceptedJSONResponse, error) {
	t, err := s.Deployments.Task(ctx, q.Deployment, q.TaskID)
	if err != nil {
		return oapi.TaskAcceptedJSONResponse{}, err
	}
	url := apiTaskPath(q.TaskID)
	return oapi.TaskAcceptedJSONResponse{
		Body:    oapi.TaskAccepted{Task: apiTaskOf(t, q.Deployment), Url: url},
		Headers: oapi.TaskAcceptedResponseHeaders{Location: &url},
	}, nil
}

// apiInvalid is the EINVALID error of a request's bad fields, worded as the
// service words a form's.
func apiInvalid(fields map[string]string) error {
	return &styrmin.Error{Code: styrmin.EINVALID, Message: deployment.InvalidFields, Fields: fields}
}

// paramForm is the form text of a request's parameter values on top of
// start, the form's starting text (deployment.JSONForm); bad values get
// their message in fields, keyed param.<name> as the service keys them.
func paramForm(params []drivers.Parameter, start map[string]string, values *oapi.ParameterValues, fields map[string]string) map[string]string {
	if values == nil {
		return maps.Clone(start)
	}
	form, bad := deployment.JSONForm(params, start, *values)
	for name, msg := range bad {
		fields[httpx.ParamPrefix+"."+name] = msg
	}
	return form
}

// hookPromptForm is the form text of a request's hook action prompts (action
// → prompt → JSON value), for the actions that the change runs and that ask
// prompts, starting from start (action → prompt → text). Bad values, and
// actions the change does not run, get their message in fields, keyed
// prompt.<action>.<prompt> (prompt.<action> for an action).
func hookPromptForm(actions []*drivers.Action, start map[string]map[string]string, values *oapi.PromptValues, fields map[string]string) map[string]map[string]string {
	form := map[string]map[string]string{}
	for _, a := range actions {
		form[a.Name] = maps.Clone(start[a.Name])
	}
	if values == nil {
		return form
	}
	for action, prompts := range *values {
		i := indexOfAction(actions, action)
		if i < 0 {
			fields[httpx.PromptPrefix+"."+action] = "this change runs no action " + action + " that asks prompts"
			continue
		}
		text, bad := deployment.JSONForm(actions[i].Prompts, start[action], prompts)
		for name, msg := range bad {
			fields[httpx.PromptPrefix+"."+action+"."+name] = msg
		}
		form[action] = text
	}
	return form
}

// indexOfAction is the index of the action named name in actions, -1 when none.
func indexOfAction(actions []*drivers.Action, name string) int {
	for i, a := range actions {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// rekeyed is err with the fields that start with from starting with to
// instead; other errors are returned as they are.
func rekeyed(err error, from, to string) error {
	fields := styrmin.ErrorFields(err)
	if len(fields) == 0 {
		return err
	}
	out := map[string]string{}
	for k, v := range fields {
		if rest, ok := strings.CutPrefix(k, from); ok {
			k = to + rest
		}
		out[k] = v
	}
	return &styrmin.Error{Code: styrmin.ErrorCode(err), Message: styrmin.ErrorMessage(err), Fields: out, Err: err}
}

// optional is the value p points to, or the zero value for nil.
func optional[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
