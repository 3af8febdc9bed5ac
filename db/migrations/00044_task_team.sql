-- The team of each task: its deployment's, kept by the database. A member's
-- task list reads the newest page of each of their teams through
-- tasks_team_idx, bounded by their teams and the page whatever the plan
-- (issue 32), where reading a page of each of the teams' deployments was
-- bounded by how many deployments a team has.
--
-- A trigger fills team_id from the deployment when a task is inserted,
-- waiting for a move of that deployment under way and reading the team it
-- moved to; the foreign key (deployment_id, team_id) makes a task of another
-- team than its deployment's impossible, and cascades a move of a
-- deployment (MoveDeployment) to its tasks, nested ones included.

-- +goose Up
ALTER TABLE deployments ADD CONSTRAINT deployments_id_team_key UNIQUE (id, team_id);

ALTER TABLE tasks ADD COLUMN team_id bigint;
UPDATE tasks t SET team_id = d.team_id FROM deployments d WHERE d.id = t.deployment_id;
ALTER TABLE tasks ALTER COLUMN team_id SET NOT NULL;
ALTER TABLE tasks ADD CONSTRAINT tasks_deployment_team_fkey FOREIGN KEY (deployment_id, team_id)
    REFERENCES deployments (id, team_id) ON UPDATE CASCADE;

-- +goose StatementBegin
CREATE FUNCTION tasks_team_of_deployment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT d.team_id INTO NEW.team_id FROM deployments d WHERE d.id = NEW.deployment_id FOR KEY SHARE;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER tasks_team_of_deployment BEFORE INSERT ON tasks
    FOR EACH ROW EXECUTE FUNCTION tasks_team_of_deployment();

-- A member's page of the task list: their teams' top-level tasks, newest first.
CREATE INDEX tasks_team_idx ON tasks (team_id, id DESC) WHERE parent_step_id IS NULL;

-- +goose Down
DROP INDEX tasks_team_idx;
DROP TRIGGER tasks_team_of_deployment ON tasks;
DROP FUNCTION tasks_team_of_deployment();
ALTER TABLE tasks DROP COLUMN team_id;
ALTER TABLE deployments DROP CONSTRAINT deployments_id_team_key;
