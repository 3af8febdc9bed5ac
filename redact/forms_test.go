package redact_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/redact"
)

// Fake private keys: the body is random base64, not a key.
const (
	rsaKey = "-----BEGIN RSA PRIVATE KEY-----\n" +
		"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" +
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n" +
		"Lx4wQ==\n" +
		"-----END RSA PRIVATE KEY-----"
	ecKey = "-----BEGIN EC PRIVATE KEY-----\n" +
		"MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n" +
		"-----END EC PRIVATE KEY-----"
	sshKey = "-----BEGIN OPENSSH PRIVATE KEY-----\n" +
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
		"QyNTUxOQAAACDcNkB2cYHvBx+oPLlA0bnlq2k3YkLZEHHzqXv6n1AGrAAAAJjNS7dAzUu3\n" +
		"-----END OPENSSH PRIVATE KEY-----"
)

// TestStringCommonForms checks, for each common form of secret, that the
// secret is gone, that Mark took its place and that its label is kept.
func TestStringCommonForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		secret string   // must be gone
		keep   []string // must stay
	}{
		{"bearer header", "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0", []string{"Authorization: Bearer <redacted>"}},
		{"basic header", "Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy", []string{"Authorization: Basic <redacted>"}},
		{"token header", "authorization: Token 4c1f0a9e8b7d6c5a4f3e2d1c", "4c1f0a9e8b7d6c5a4f3e2d1c", []string{"authorization: Token <redacted>"}},
		{"bearer in curl", `curl -H "Authorization: Bearer abc123def456ghi789" https://api.example.com/v1`, "abc123def456ghi789", []string{`"Authorization: Bearer <redacted>"`, "https://api.example.com/v1"}},
		{"bearer outside a header", "retrying with bearer Zm9vYmFyYmF6MTIzNDU2Nzg5", "Zm9vYmFyYmF6MTIzNDU2Nzg5", []string{"retrying with bearer <redacted>"}},
		{"basic outside a header", "sent Basic YWRtaW46czNjcjN0", "YWRtaW46czNjcjN0", []string{"sent Basic <redacted>"}},
		{"postgres url", "could not connect to postgres://app:S3cr3tPass@db.internal:5432/app", "S3cr3tPass", []string{"postgres://app:<redacted>@db.internal:5432/app"}},
		{"url password with @", "mongodb://root:p@ss!w0rd@mongo:27017/admin?authSource=admin", "p@ss!w0rd", []string{"mongodb://root:<redacted>@mongo:27017/admin"}},
		{"redis url without user", "REDIS_URL is redis://:r3d1sPass@cache:6379/0", "r3d1sPass", []string{"redis://:<redacted>@cache:6379/0"}},
		{"password= pair", "connecting with password=hunter2xyz host=db", "hunter2xyz", []string{"password=<redacted> host=db"}},
		{"libpq dsn", "dsn: host=db user=app password='s3cr3t pass' dbname=app", "s3cr3t pass", []string{"password='<redacted>' dbname=app"}},
		{"yaml", "  db_password: Tr0ub4dor3", "Tr0ub4dor3", []string{"  db_password: <redacted>"}},
		{"json", `{"client_secret": "c2VjcmV0LXZhbHVl-xyz", "client_id": "app"}`, "c2VjcmV0LXZhbHVl-xyz", []string{`"client_secret": "<redacted>"`, `"client_id": "app"`}},
		{"escaped json", `body={\"password\":\"h0l4mund0\"}`, "h0l4mund0", []string{`\"password\":\"<redacted>\"`}},
		{"python dict", "params {'api_key': 'ak_5f4e3d2c1b0a', 'region': 'eu'}", "ak_5f4e3d2c1b0a", []string{"'api_key': '<redacted>'", "'region': 'eu'"}},
		{"python kwargs", "connect(user='app', passwd='my-passw0rd')", "my-passw0rd", []string{"passwd='<redacted>'"}},
		{"query string", "GET /callback?code=42&access_token=ya29.a0AfH6SM&state=x", "ya29.a0AfH6SM", []string{"access_token=<redacted>&state=x"}},
		{"api key header", "X-Api-Key: 0f1e2d3c4b5a69788796a5b4", "0f1e2d3c4b5a69788796a5b4", []string{"X-Api-Key: <redacted>"}},
		{"flag with space", "styrmin-cli --token 7d9c2b1e5f3a8c6d login", "7d9c2b1e5f3a8c6d", []string{"--token <redacted> login"}},
		{"flag with =", "pg_dump --password=pgS3cret! --host db", "pgS3cret!", []string{"--password=<redacted> --host db"}},
		{"env secret key", "SECRET_KEY_BASE=9a8b7c6d5e4f3a2b1c0d", "9a8b7c6d5e4f3a2b1c0d", []string{"SECRET_KEY_BASE=<redacted>"}},
		{"env db pass", "DB_PASS=correct-horse-battery", "correct-horse-battery", []string{"DB_PASS=<redacted>"}},
		{"PGPASSWORD", "PGPASSWORD=pg-super-5ecret psql -h db -U postgres", "pg-super-5ecret", []string{"PGPASSWORD=<redacted> psql -h db -U postgres"}},
		{"MYSQL_PWD", "MYSQL_PWD=my5qlRoot mysqldump app", "my5qlRoot", []string{"MYSQL_PWD=<redacted> mysqldump app"}},
		{"mysql -p", "mysql -h db -u root -pR00tPassw0rd -e 'SELECT 1'", "R00tPassw0rd", []string{"-u root -p<redacted> -e"}},
		{"redis-cli -a", "redis-cli -h cache -a r3d1sS3cret PING", "r3d1sS3cret", []string{"-a <redacted> PING"}},
		{"redis-cli --pass", "redis-cli --pass r3d1sS3cret2 INFO", "r3d1sS3cret2", []string{"--pass <redacted> INFO"}},
		{"requirepass", "CONFIG SET requirepass Sup3rR3dis", "Sup3rR3dis", []string{"CONFIG SET requirepass <redacted>"}},
		{"masterauth", `masterauth "M4sterR3dis"`, "M4sterR3dis", []string{`masterauth "<redacted>"`}},
		{"curl -u", "curl -sf -u admin:Adm1nPa55 https://es:9200/_cluster/health", "Adm1nPa55", []string{"-u admin:<redacted> https://es:9200"}},
		{"sql password", "ALTER ROLE app WITH LOGIN PASSWORD 'it''s-s3cret';", "s3cret", []string{"PASSWORD '<redacted>';"}},
		{"sql identified by", "CREATE USER 'app'@'%' IDENTIFIED BY 'Myp4ss';", "Myp4ss", []string{"IDENTIFIED BY '<redacted>'"}},
		{"connection string", "Server=db;User Id=sa;Password=Adm1nPass;Database=app", "Adm1nPass", []string{"Password=<redacted>;Database=app"}},
		{"pem rsa", "key:\n" + rsaKey + "\ndone", "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", []string{"-----BEGIN RSA PRIVATE KEY-----\n<redacted>\n<redacted>\n<redacted>\n-----END RSA PRIVATE KEY-----\ndone"}},
		{"pem ec", ecKey, "MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY", []string{"-----BEGIN EC PRIVATE KEY-----"}},
		{"pem openssh", sshKey, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9u", []string{"-----END OPENSSH PRIVATE KEY-----"}},
		{"pem pkcs8 in json", `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"}`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", []string{`"private_key": "<redacted>"`, `"type": "service_account"`}},
		{"pem cut at the end", "ssh key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9u", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9u", []string{"-----BEGIN OPENSSH PRIVATE KEY-----\n<redacted>"}},
		{"pem cut at the start", "TKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\nLx4wQ==\n-----END RSA PRIVATE KEY-----\nexit 1", "TKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK", []string{"<redacted>\n<redacted>\n-----END RSA PRIVATE KEY-----\nexit 1"}},
		{"jwt", "token rejected: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U (expired)", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", []string{"token rejected: <redacted> (expired)"}},
		{"aws access key id", "using AKIAIOSFODNN7EXAMPLE in eu-west-1", "AKIAIOSFODNN7EXAMPLE", []string{"using <redacted> in eu-west-1"}},
		{"aws session key id", "creds ASIAY34FZKBOKMUTVV7A expire soon", "ASIAY34FZKBOKMUTVV7A", []string{"creds <redacted> expire soon"}},
		{"aws secret access key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", []string{"aws_secret_access_key = <redacted>"}},
		{"aws secret in json", `{"AccessKeyId": "ASIAY34FZKBOKMUTVV7A", "SecretAccessKey": "9drTJvcXLB89EXAMPLELB8923FB892xMFI"}`, "9drTJvcXLB89EXAMPLELB8923FB892xMFI", []string{`"SecretAccessKey": "<redacted>"`}},
		{"aws session token", "AWS_SESSION_TOKEN=FwoGZXIvYXdzEBYaDH3ZmVhZTk0YjY", "FwoGZXIvYXdzEBYaDH3ZmVhZTk0YjY", []string{"AWS_SESSION_TOKEN=<redacted>"}},
		{"github classic", "git clone https://ghp_R2d2C3poLuke5kywalkerHanSolo0123456@github.com/o/r", "ghp_R2d2C3poLuke5kywalkerHanSolo0123456", []string{"@github.com/o/r"}},
		{"github oauth", "token gho_16C7e42F292c6912E7710c838347Ae178B4a accepted", "gho_16C7e42F292c6912E7710c838347Ae178B4a", []string{"accepted"}},
		{"github fine-grained", "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", []string{"GH=<redacted>"}},
		{"gitlab", "push failed with glpat-xYz12AbC34dEf56GhI78jK", "glpat-xYz12AbC34dEf56GhI78jK", []string{"push failed with <redacted>"}},
		{"slack", "posting with xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp", []string{"posting with <redacted>"}},
		{"stripe", "charge failed (key sk_live_4eC39HqLyjWDarjtT1zdp7dc)", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", []string{"(key <redacted>)"}},
		{"stripe restricted", "rk_live_51H8sTuKq2Lz9XyAbCdEfGh", "rk_live_51H8sTuKq2Lz9XyAbCdEfGh", nil},
		{"google api key", "maps?key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q&q=x", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", []string{"&q=x"}},
		{"npm", "//registry.npmjs.org/:_authToken=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWxYz", "npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWxYz", []string{"//registry.npmjs.org/:_authToken="}},
		{"openai", "openai.AuthenticationError: Incorrect API key provided: sk-proj-Ab12Cd34Ef56Gh78Ij90KlMn", "sk-proj-Ab12Cd34Ef56Gh78Ij90KlMn", []string{"Incorrect API key provided: <redacted>"}},
		{"hugging face", "HF hub refused hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", []string{"HF hub refused <redacted>"}},
		{"azure storage", "DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net", "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq", []string{"AccountName=st1;AccountKey=<redacted>;EndpointSuffix"}},
		{"azure sas", "GET https://st1.blob.core.windows.net/c/b?sv=2022-11-02&sr=b&sig=Zm9vYmFyJTJCc2lnbmF0dXJl%3D&se=2026", "Zm9vYmFyJTJCc2lnbmF0dXJl%3D", []string{"&sig=<redacted>&se=2026"}},
		{"s3 presigned", "https://b.s3.amazonaws.com/k?X-Amz-Signature=4f2e1d0c9b8a7f6e5d4c&X-Amz-Date=1", "4f2e1d0c9b8a7f6e5d4c", []string{"X-Amz-Signature=<redacted>&X-Amz-Date=1"}},
		{"styrmin action token", "POST /api/action/v1/jobs with sta_q2Vx9Lm3Np7Rt5Wz1Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op8Q failed", "sta_q2Vx9Lm3Np7Rt5Wz1Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op8Q", []string{"jobs with <redacted> failed"}},
		{"styrmin api token", "echo stp_Qm9-vYmFy_YmF6cXV4cXV1eDEyMzQ1Njc4OTBhYmNkZWY > ~/.styrmin", "stp_Qm9-vYmFy_YmF6cXV4cXV1eDEyMzQ1Njc4OTBhYmNkZWY", []string{"echo <redacted> > ~/.styrmin"}},
		{"docker auth", `{"auths": {"ghcr.io": {"auth": "dXNlcjpnaHBfc2VjcmV0"}}}`, "dXNlcjpnaHBfc2VjcmV0", []string{`"auth": "<redacted>"`}},
		{"key => value", "{:password => 'r4ils-s3cret'}", "r4ils-s3cret", []string{":password => '<redacted>'"}},
		{"after a refused key", "author: token=abc123def", "abc123def", []string{"author: token=<redacted>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := redact.New().String(tt.in)
			require.NotContains(t, out, tt.secret)
			require.Contains(t, out, redact.Mark)
			for _, k := range tt.keep {
				require.Contains(t, out, k)
			}
		})
	}
}

// TestStringInnocentText checks that text without secrets comes out as it
// went in.
func TestStringInnocentText(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"password reset succeeded",
		"token count: 5",
		"the secret garden",
		"SELECT id, name FROM users WHERE created_at > now() - interval '1 day' AND name = 'bob';",
		"fetching https://example.com:8443/path/to?page=2&sort=name#top",
		"2026-12-02T15:36:51.123Z INFO backup started at 15:36:51",
		"[2026-12-02 15:36:51,123] WARNING 12:00:00 elapsed",
		"author: Jane Doe",
		"authorized: true",
		"AuthenticationError: invalid username or token",
		"psycopg2.OperationalError: FATAL:  password authentication failed for user \"postgres\"",
		"secretName: postgres-credentials",
		"--password-file /run/secrets/pg",
		"token_type: bearer",
		"max_tokens=512",
		"passed: 12, failed: 0",
		"Basic authentication is disabled",
		"the bearer of bad news",
		"task-runner-0a1b2c3d4e5f6a7b8c9d",
		"deleted pod sk-prod-database-primary-0",
		"ls -a /tmp",
		"docker run -u 1000:1000 busybox",
		"mysql -h db -P 3306 -u app -p",
		"git@github.com:styrmin/styrmin.git",
		"Authorization header missing",
		"Enter password:",
		"design: modern",
		"signal=9",
		"keyboard: us",
		"the --no-password prompt",
		"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ\n-----END CERTIFICATE-----",
		"Traceback (most recent call last):\n  File \"actions.py\", line 12, in backup\nRuntimeError: backup failed",
	} {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, in, redact.New().String(in))
		})
	}
}

// TestStringIdempotent checks that redacting twice gives the same text as
// redacting once, so a stored redacted text can be redacted again safely.
func TestStringIdempotent(t *testing.T) {
	t.Parallel()
	r := redact.New("hunter2xyz")
	in := strings.Join([]string{
		"Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
		"postgres://app:S3cr3tPass@db/app password=hunter2xyz",
		rsaKey,
		`{"token": "abc def"}`,
	}, "\n")
	once := r.String(in)
	require.Equal(t, once, r.String(once))
}
