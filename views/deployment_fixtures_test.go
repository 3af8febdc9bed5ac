package views

import "time"

// Props the deployment view tests render: one of each kind of parameter,
// task and step, with secret-looking values where none may show.

const leakedSecret = "hunter2-s3cr3t"

var (
	operator = &User{ID: 2, Username: "olga", Role: "operator"}
	reader   = &User{ID: 3, Username: "rita", Role: "read-only"}
	t0       = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
)

func sampleGroups() []ParamGroup {
	return []ParamGroup{
		{Fields: []ParamField{
			{Name: "title", Title: "Site title", Type: "string", Value: "My <site>", Required: true, MinLength: 3, MaxLength: 40,
				Pattern: "[A-Za-z ]+", Description: "<p>Shown in the <em>header</em>.</p>"},
			{Name: "motd", Title: "Message of the day", Type: "text", Value: "line 1\nline 2"},
		}},
		{Name: "Resources", Fields: []ParamField{
			{Name: "replicas", Title: "Replicas", Type: "integer", Value: "3", Min: "1", Max: "9", Error: "Replicas must be at most 9"},
			{Name: "cpu", Title: "CPU", Type: "number", Value: "0.5", Min: "0.1"},
			{Name: "metrics", Title: "Metrics", Type: "boolean", Value: "true"},
			{Name: "debug", Title: "Debug", Type: "boolean"},
			{Name: "size", Title: "Disk size", Type: "enum", Value: "20Gi", Required: true,
				Choices: []ParamChoice{{Value: "10Gi"}, {Value: "20Gi"}, {Value: "50Gi", Label: "50 GiB"}}},
		}},
		{Name: "Security", Fields: []ParamField{
			{Name: "password", Title: "Admin password", Type: "secret", Value: leakedSecret, Required: true, MinLength: 12},
			{Name: "storage_class", Title: "Storage class", Type: "string", Value: "fast", Locked: true},
			{Name: "engine", Title: "Engine", Type: "enum", Value: "b", Locked: true, Choices: []ParamChoice{{Value: "a"}, {Value: "b"}}},
			{Name: "tls", Title: "TLS", Type: "boolean", Value: "true", Locked: true},
			{Name: "root_key", Title: "Root key", Type: "secret", KeepsSecret: true, Value: leakedSecret},
		}},
	}
}

func sampleInstall(user *User) DeploymentInstallProps {
	return DeploymentInstallProps{
		Page:                 Page{Title: "Deploy Redis", User: user, CSRFToken: "tok"},
		DriverName:           "redis",
		DriverTitle:          "Redis",
		DriverIconURL:        "/drivers/redis/1.1.0/icon",
		DriverVersion:        "1.1.0",
		DriverVersions:       []VersionChoice{{Version: "1.1.0", Note: "newest"}, {Version: "1.0.0"}},
		Name:                 "Cache!",
		NameMaxLength:        49,
		AppVersion:           "7.2.4",
		AppVersions:          []string{"7.2.4", "7.2.3", "7.0.15"},
		AppVersionConstraint: ">=7.0, <8",
		Groups:               sampleGroups(),
		FieldErrors:          map[string]string{"name": "A name is a DNS label: lower-case letters, digits and '-'"},
	}
}

func sampleUpgrade(user *User) DeploymentUpgradeProps {
	return DeploymentUpgradeProps{
		Page:                 Page{Title: "Upgrade cache", User: user, CSRFToken: "tok"},
		Name:                 "cache",
		Namespace:            "cache",
		DriverName:           "redis",
		DriverTitle:          "Redis",
		CurrentDriverVersion: "1.0.0",
		CurrentAppVersion:    "7.2.3",
		DriverVersion:        "1.1.0",
		DriverVersions:       []VersionChoice{{Version: "1.0.0", Note: "current"}, {Version: "1.1.0", Note: "newest"}},
		AppVersion:           "7.2.4",
		AppVersionConstraint: ">=7.0, <8",
		Groups:               sampleGroups(),
		Removed:              []RemovedParam{{Name: "legacy_mode", Title: "Legacy mode"}},
	}
}

func sampleReview() DeploymentReviewProps {
	return DeploymentReviewProps{
		Page:  Page{Title: "Review", User: operator, CSRFToken: "tok"},
		Name:  "cache",
		From:  ReviewVersions{DriverVersion: "1.0.0", AppVersion: "7.2.3"},
		To:    ReviewVersions{DriverVersion: "1.1.0", AppVersion: "7.2.4"},
		Token: "rev-123",
		Changes: []ParamChange{
			NewParamChange("replicas", "Replicas", "changed", false, "1", "3"),
			NewParamChange("password", "Admin password", "changed", true, leakedSecret, leakedSecret+"-new"),
			NewParamChange("root_key", "Root key", "unchanged", true, leakedSecret, leakedSecret),
			NewParamChange("metrics", "Metrics", "added", false, "", "true"),
			NewParamChange("legacy_mode", "Legacy mode", "removed", false, "on", ""),
			NewParamChange("size", "Disk size", "unchanged", false, "20Gi", "20Gi"),
		},
		Resources: []ResourceDiff{
			{Kind: "StatefulSet", Name: "cache-redis", Namespace: "cache", Change: "changed",
				Diff: "--- old\n+++ new\n@@ -10,3 +10,3 @@\n spec:\n-  replicas: 1\n+  replicas: 3\n"},
			{Kind: "Secret", Name: "cache-redis-auth", Change: "changed", ChangedSecretKeys: []string{"data.password"},
				Diff: "-  password: " + leakedSecret + "\n+  password: " + leakedSecret + "-new\n"},
			{Kind: "ConfigMap", Name: "cache-metrics", Change: "added", Diff: "+kind: ConfigMap\n"},
			{Kind: "Service", Name: "cache-redis", Change: "unchanged"},
		},
	}
}

func sampleTasks() []TaskProps {
	return []TaskProps{
		{Deployment: "cache", ID: 12, Kind: "upgrade", Status: "queued", Ahead: 2, CreatedBy: "olga", CreatedAt: t0.Add(2 * time.Minute)},
		{Deployment: "cache", ID: 11, Kind: "upgrade", Status: "running", CreatedBy: "olga", CreatedAt: t0, StartedAt: t0.Add(time.Second),
			Inputs:        []TaskInput{{Label: "Driver version", Value: "1.0.0 → 1.1.0"}, {Label: "Application version", Value: "7.2.3 → 7.2.4"}},
			ChangedParams: []string{"replicas", "password"},
			Steps: []StepProps{
				{Title: "Validate inputs", Kind: "validate", Status: "succeeded", StartedAt: t0.Add(time.Second), EndedAt: t0.Add(2 * time.Second)},
				{Title: "Run pre-upgrade action Back up", Kind: "hook", Status: "succeeded", StartedAt: t0.Add(2 * time.Second), EndedAt: t0.Add(95 * time.Second),
					DeletedJob: "cache-job",
					Logs: []LogLine{
						{Time: t0.Add(3 * time.Second), Level: "INFO", Message: "dumping"},
						{Time: t0.Add(4 * time.Second), Level: "WARNING", Message: "slow disk"},
					},
					JobTail: "a\nb\nc\n", JobMessage: "The Job cache-job failed: its commands exited with code 3.",
					Nested: []TaskProps{{Deployment: "cache", ID: 13, Kind: "stop", Status: "succeeded", CreatedBy: "action", CreatedAt: t0,
						Steps: []StepProps{{Title: "Scale redis to 0", Kind: "component", Status: "succeeded", StartedAt: t0, EndedAt: t0.Add(3 * time.Second)}}}},
				},
				{Title: "Helm upgrade", Kind: "helm", Status: "running", StartedAt: t0.Add(95 * time.Second)},
			}},
		{Deployment: "cache", ID: 10, Kind: "install", Status: "failed", CreatedBy: "olga", CreatedAt: t0.Add(-time.Hour),
			StartedAt: t0.Add(-time.Hour), EndedAt: t0.Add(-time.Hour + 3*time.Minute), Message: "timed out waiting for component redis",
			Steps: []StepProps{{Title: "Run post-install action Init", Kind: "hook", Status: "failed", StartedAt: t0.Add(-time.Hour), EndedAt: t0.Add(-time.Hour + time.Minute),
				Error: "RuntimeError: init failed", JobTail: "line 1\nline 2\n"}}},
	}
}

func sampleShow(user *User) DeploymentShowProps {
	return DeploymentShowProps{
		Page:          Page{Title: "cache", Nav: NavDeployments, User: user, CSRFToken: "tok"},
		Name:          "cache",
		Namespace:     "cache-ns",
		Status:        "deployed",
		Busy:          "upgrade",
		DriverName:    "redis",
		DriverTitle:   "Redis",
		DriverVersion: "1.0.0",
		AppVersion:    "7.2.3",
		CreatedBy:     "olga",
		CreatedAt:     t0.Add(-48 * time.Hour),
		Components: []ComponentRow{
			{Name: "redis", Title: "Redis server", Workloads: []WorkloadRow{{Kind: "StatefulSet", Name: "cache-redis", Desired: 3, Ready: 2}}},
			{Name: "exporter", Title: "Metrics exporter", Stopped: true, Workloads: []WorkloadRow{{Kind: "Deployment", Name: "cache-exporter"}}},
		},
		Services: []ServiceRow{
			{Name: "redis", Title: "Redis", Port: 6379, Protocol: "TCP", Address: "cache-redis.cache-ns.svc:6379", URL: "redis://cache-redis.cache-ns.svc:6379"},
			{Name: "metrics", Port: 9121, Protocol: "TCP"},
		},
		Parameters: []ParamRow{
			{Name: "replicas", Title: "Replicas", Value: "3", Set: true},
			{Name: "password", Title: "Admin password", Value: leakedSecret, Secret: true, Set: true},
			{Name: "motd", Title: "Message", Set: false},
		},
		Notes: "Connect with redis-cli -h cache-redis.cache-ns.svc",
		Revisions: []RevisionRow{
			{Revision: 2, Status: "deployed", ChartVersion: "18.1.0", AppVersion: "7.2.3", DriverVersion: "1.0.0", Updated: t0, Description: "Upgrade complete", Current: true},
			{Revision: 1, Status: "superseded", ChartVersion: "18.0.0", AppVersion: "7.2.0", DriverVersion: "1.0.0", Updated: t0.Add(-time.Hour), Description: "Install complete", CanRollBack: true},
		},
		Tasks:            sampleTasks(),
		OlderTasksBefore: 10,
	}
}

func sampleList(user *User) DeploymentListProps {
	return DeploymentListProps{
		Page: Page{Title: "Deployments", Nav: NavDeployments, User: user, CSRFToken: "tok"},
		Deployments: []DeploymentRow{
			{Name: "cache", Namespace: "cache", DriverName: "redis", DriverTitle: "Redis", DriverVersion: "1.0.0", DriverIconURL: "/drivers/redis/1.0.0/icon",
				AppVersion: "7.2.3", Status: "deployed", Busy: "upgrade",
				LastTask: &TaskSummary{ID: 11, Kind: "upgrade", Status: "running", At: t0, By: "olga"}},
			{Name: "db", Namespace: "data", DriverName: "postgresql", DriverTitle: "PostgreSQL", DriverVersion: "2.0.0",
				AppVersion: "16.4", Status: "failed",
				LastTask: &TaskSummary{ID: 3, Kind: "install", Status: "failed", At: t0, By: "rita"}},
			{Name: "old", Namespace: "old", DriverName: "redis", DriverTitle: "Redis", DriverVersion: "1.0.0", AppVersion: "7.0.0", Status: "deleted"},
		},
	}
}
