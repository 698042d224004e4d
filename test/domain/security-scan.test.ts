// The security scan: dangerous commands on word boundaries, private keys, cloud access keys,
// hardcoded secrets and secrets written to logs; findings sorted by severity rank, then path, line
// and code; a critical finding vetoes.
import { describe, expect, test } from "bun:test";
import {
	type Finding,
	type ScannedLine,
	SEVERITIES,
	scanLines,
	verdictOf,
} from "../../src/domain/security-scan.ts";

const COMMANDS = [
	"rm",
	"chmod",
	"mv",
	"git reset",
	"git push",
	"docker system prune",
	"terraform apply",
	"npm install",
	"pip install",
];

// Fake credentials are assembled at run time so that this file never holds one whole: the scan
// of a patch that adds this file must not veto it (nor trip any other secret scanner).
const fake = (...parts: string[]) => parts.join("");
const AWS_KEY = fake("AKIA", "EXAMPLEEXAMPLE00");
const AWS_SESSION_KEY = fake("ASIA", "EXAMPLEEXAMPLE00");
const GOOGLE_KEY = fake("AIza", "Sy", "EXAMPLE".repeat(4), "fake_");
const GITHUB_TOKEN = fake("ghp_", "EXAMPLE0".repeat(5));
const GITHUB_PAT = fake("github_pat_", "11EXAMPLE0000000000000_", "fake".repeat(15));
const SLACK_TOKEN = fake("xoxb-", "000000000000-000000000000-", "EXAMPLEfakeEXAMPLE");
const STRIPE_KEY = fake("sk_", "live_", "EXAMPLE0".repeat(4));
const pemHeader = (label: string) => `${"-".repeat(5)}BEGIN ${label}${"-".repeat(5)}`;

function scan(text: string, path = "src/app.ts"): Finding[] {
	return scanLines([{ path, line: 1, text }], COMMANDS);
}
const codes = (text: string, path?: string) => scan(text, path).map((f) => f.code);
const messageOf = (text: string, code: string, path?: string) =>
	scan(text, path).find((f) => f.code === code)?.message;

describe("dangerous_command", () => {
	test.each([
		["rm -rf /tmp/build", "scripts/clean.sh", "rm"],
		["sudo rm -f /etc/hosts", "scripts/clean.sh", "rm"],
		["cleanup=$(rm -rf dist)", "scripts/clean.sh", "rm"],
		['execSync("rm -rf node_modules")', "src/build.ts", "rm"],
		['subprocess.run(["rm", "-rf", path])', "tools/clean.py", "rm"],
		["/bin/rm -rf $DIR", "scripts/clean.sh", "rm"],
		["  - run: chmod 777 deploy.sh", ".github/workflows/ci.yml", "chmod"],
		["mv build/ /opt/app", "Makefile", "mv"],
		["git reset --hard origin/main", "scripts/sync.sh", "git reset"],
		["RUN npm install --global left-pad", "Dockerfile", "npm install"],
		["pip install -r requirements.txt", "setup.sh", "pip install"],
	])("%p is flagged", (text, path, command) => {
		const [finding] = scan(text, path);
		expect(finding).toEqual({
			code: "dangerous_command",
			severity: "high",
			path,
			line: 1,
			message: `dangerous command "${command}"`,
		});
	});

	test.each([
		"<form onSubmit={submit}>",
		"const firmware = loadFirmware();",
		"rm_rf_helper(dir)",
		"const $rm = jQuery('.x')",
		"docker run --rm -it alpine",
		'<button class="rm-button">',
		"chmodx ./file",
		"npm installer is not npm-install",
		"git resetting is not git-reset",
		"const storm = 'alarm'",
		"RM -RF is shouting, not a command",
	])("%p is not a command on word boundaries", (text) => {
		expect(codes(text)).toEqual([]);
	});

	test("multi-word commands match with any whitespace between their words", () => {
		expect(messageOf("git    reset HEAD~1", "dangerous_command")).toBe('dangerous command "git reset"');
		expect(messageOf("git\treset --soft", "dangerous_command")).toBe('dangerous command "git reset"');
		expect(messageOf("docker system   prune -af", "dangerous_command")).toBe(
			'dangerous command "docker system prune"',
		);
		expect(messageOf("terraform  apply -auto-approve", "dangerous_command")).toBe(
			'dangerous command "terraform apply"',
		);
		expect(codes("docker system info; terraform plan")).toEqual([]);
	});

	test("a command split into separate exec arguments is not seen (the scan reads text, not calls)", () => {
		expect(codes('exec.Command("git", "push", "--force")', "cmd/release.go")).toEqual([]);
	});

	test("several commands on one line make one finding naming them all", () => {
		const findings = scan("chmod +x run.sh && rm -rf out && git push", "build.sh");
		expect(findings).toHaveLength(1);
		expect(findings[0]?.message).toBe('dangerous command "rm", "chmod", "git push"');
	});

	test("configured commands are taken literally; blank and repeated entries are ignored", () => {
		const lines: ScannedLine[] = [
			{ path: "a.sh", line: 1, text: "axb --now" },
			{ path: "a.sh", line: 2, text: "a.b --now" },
		];
		expect(scanLines(lines, ["a.b", "", "   ", "a.b"]).map((f) => [f.line, f.message])).toEqual([
			[2, 'dangerous command "a.b"'],
		]);
		expect(scanLines(lines, [])).toEqual([]);
	});
});

describe("private_key", () => {
	test.each([
		["RSA PRIVATE KEY", "RSA private key block"],
		["EC PRIVATE KEY", "EC private key block"],
		["DSA PRIVATE KEY", "DSA private key block"],
		["OPENSSH PRIVATE KEY", "OPENSSH private key block"],
		["ENCRYPTED PRIVATE KEY", "ENCRYPTED private key block"],
		["PRIVATE KEY", "private key block"],
		["PGP PRIVATE KEY BLOCK", "PGP private key block"],
	])("a %s header is critical", (label, kind) => {
		expect(scan(pemHeader(label), "deploy/id_rsa")).toEqual([
			{
				code: "private_key",
				severity: "critical",
				path: "deploy/id_rsa",
				line: 1,
				message: `${kind} (a private key must never be committed)`,
			},
		]);
	});

	test("a header inside a string literal is found too", () => {
		expect(codes(`const key = "${pemHeader("RSA PRIVATE KEY")}\\nMIIEowIBAAKCAQEA";`)).toEqual([
			"private_key",
		]);
	});

	test.each([
		pemHeader("PUBLIC KEY"),
		pemHeader("CERTIFICATE"),
		pemHeader("PGP PUBLIC KEY BLOCK"),
		"// reads a PEM private key from KEY_PATH",
		"BEGIN RSA PRIVATE KEY without the armor dashes",
	])("%p is not a private key", (text) => {
		expect(codes(text)).toEqual([]);
	});
});

describe("cloud_access_key", () => {
	test.each([
		[`aws_access_key_id = ${AWS_KEY}`, "config/aws.ini", "AWS access key id"],
		[`const creds = { accessKeyId: "${AWS_SESSION_KEY}" };`, "src/s3.ts", "AWS access key id"],
		[`GOOGLE_MAPS_KEY = "${GOOGLE_KEY}"`, "app/settings.py", "Google API key"],
		[`  token: ${GITHUB_TOKEN}`, ".github/workflows/release.yml", "GitHub token"],
		[`git clone https://${GITHUB_PAT}@github.com/acme/app`, "scripts/clone.sh", "GitHub token"],
		[`SLACK_WEBHOOK_TOKEN=${SLACK_TOKEN}`, ".env.production", "Slack token"],
		[`stripe.api_key = '${STRIPE_KEY}'`, "billing/charge.py", "Stripe live secret key"],
	])("%p is critical", (text, path, kind) => {
		const finding = scan(text, path).find((f) => f.code === "cloud_access_key");
		expect(finding).toMatchObject({ severity: "critical", path, line: 1 });
		expect(finding?.message).toStartWith(kind);
	});

	test("several kinds on one line make one finding naming them all", () => {
		const findings = scan(`keys = ["${AWS_KEY}", "${STRIPE_KEY}"]`).filter(
			(f) => f.code === "cloud_access_key",
		);
		expect(findings).toHaveLength(1);
		expect(findings[0]?.message).toStartWith("AWS access key id, Stripe live secret key");
	});

	test.each([
		fake("AKIA", "EXAMPLE"), // too short
		fake("AKIA", "exampleexample00"), // lower case
		fake("X", AWS_KEY), // inside a longer token
		fake(AWS_KEY, "0"), // longer than a key id
		fake("ghp_", "short"),
		fake("sk_", "test_", "EXAMPLE0".repeat(4)), // a test-mode key
		fake("pk_", "live_", "EXAMPLE0".repeat(4)), // a publishable key, public by design
		fake("xoxz-", "000000000000"),
		"const AKIA_PREFIX = 'AKIA';",
	])("%p is not a cloud access key", (text) => {
		expect(codes(text)).not.toContain("cloud_access_key");
	});
});

describe("hardcoded_secret", () => {
	test.each([
		['const apiKey = "f00dbabe1234deadbeef";', "src/client.ts", "apiKey"],
		['const API_KEY: string = "f00dbabe1234deadbeef";', "src/client.ts", "API_KEY"],
		["export const authToken = 'f00dbabe1234deadbeef'", "src/auth.ts", "authToken"],
		['  clientSecret: "f00dbabe1234deadbeef",', "src/oauth.ts", "clientSecret"],
		['this.password = "hunter2hunter2";', "src/db.ts", "password"],
		['  "client_secret": "f00dbabe1234deadbeef",', "config/oauth.json", "client_secret"],
		['DB_PASSWORD = "hunter2hunter2"', "app/settings.py", "DB_PASSWORD"],
		['SECRET_KEY: str = "django-insecure-f00dbabe"', "app/settings.py", "SECRET_KEY"],
		['conn = connect(host="db", password="hunter2hunter2")', "app/db.py", "password"],
		['config["api_key"] = "f00dbabe1234deadbeef"', "app/client.py", "api_key"],
		["const privateKey = `f00dbabe1234deadbeef`", "src/sign.ts", "privateKey"],
		['token := "f00dbabe1234deadbeef"', "cmd/main.go", "token"],
		['var apiKey string = "f00dbabe1234deadbeef"', "cmd/main.go", "apiKey"],
		['\t\tPassword: "hunter2hunter2",', "internal/db.go", "Password"],
		["  'password' => 'hunter2hunter2',", "config/database.php", "password"],
		['String dbPassword = "hunter2hunter2";', "src/main/java/Db.java", "dbPassword"],
		["  password: hunter2hunter2", "config/database.yml", "password"],
		["    api-key: f00dbabe1234deadbeef", "helm/values.yaml", "api-key"],
		["  - POSTGRES_PASSWORD=hunter2hunter2", "docker-compose.yml", "POSTGRES_PASSWORD"],
		["STRIPE_SECRET=f00dbabe1234deadbeef", ".env", "STRIPE_SECRET"],
		["export GITHUB_TOKEN=f00dbabe1234deadbeef", "scripts/release.sh", "GITHUB_TOKEN"],
		["//registry.npmjs.org/:_authToken=f00dbabe1234deadbeef", ".npmrc", "_authToken"],
	])("%p is flagged", (text, path, name) => {
		expect(scan(text, path)).toEqual([
			{
				code: "hardcoded_secret",
				severity: "high",
				path,
				line: 1,
				message: `hardcoded secret assigned to "${name}" (load it from the environment)`,
			},
		]);
	});

	test.each([
		// read from the environment
		["const apiKey = process.env.API_KEY;", "src/client.ts"],
		['const token = process.env["GITHUB_TOKEN"] ?? "";', "src/client.ts"],
		['password = os.environ["DB_PASSWORD"]', "app/settings.py"],
		['api_key = os.environ.get("API_KEY")', "app/settings.py"],
		['password := os.Getenv("DB_PASSWORD")', "cmd/main.go"],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned text holds an interpolation
		["  token: ${{ secrets.GITHUB_TOKEN }}", ".github/workflows/ci.yml"],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned text holds an interpolation
		["  password: ${DB_PASSWORD}", "docker-compose.yml"],
		["DB_PASSWORD=$DB_PASSWORD_FROM_VAULT", ".env"],
		// empty or placeholders
		['const apiKey = "";', "src/client.ts"],
		['password = "changeme"', "app/settings.py"],
		['  clientSecret: "<your-client-secret>",', "src/oauth.ts"],
		['const token = "xxxxxxxxxxxxxxxx";', "src/client.ts"],
		['api_key = "XXXX-XXXX-XXXX"', "app/settings.py"],
		['const password = "********";', "src/form.ts"],
		["  password: '{{ vault_db_password }}'", "ansible/vars.yml"],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned text holds an interpolation
		["const token = `Bearer ${session.id}`;", "src/client.ts"],
		["API_KEY=your-api-key-here", ".env.example"],
		['secret: "REPLACE_ME_BEFORE_DEPLOY"', "config/app.yml"],
		["  private_key: /etc/ssl/private/server.key", "config/tls.yml"],
		// comparisons
		['if (token === "f00dbabe1234deadbeef") return;', "src/auth.ts"],
		['if password == "hunter2hunter2":', "app/auth.py"],
		['if (password != "hunter2hunter2") deny();', "src/auth.ts"],
		['if token == "f00dbabe1234deadbeef" {', "cmd/main.go"],
		// names that describe a secret without holding one
		['const tokenUrl = "https://oauth2.example.com/token";', "src/oauth.ts"],
		['const passwordHint = "min-12-characters";', "src/form.ts"],
		['tokenizer = "whitespace-tokenizer"', "nlp/config.py"],
		['const privateKeyPath = "keys/signing.pem";', "src/sign.ts"],
		['fetch(url, { credentials: "same-origin" })', "src/client.ts"],
		// prose, code and too-short values
		['  invalidToken: "Your session token has expired",', "src/i18n/en.ts"],
		["const password = readPassword();", "src/cli.ts"],
		["const secret = await vault.read(path);", "src/vault.ts"],
		['const token = "abc";', "src/client.ts"],
		["password: string;", "src/types.ts"],
		['password = input("Password: ")', "app/cli.py"],
	])("%p is not flagged", (text, path) => {
		expect(codes(text, path)).toEqual([]);
	});

	test("a bare value only counts in config files; in code it is an expression", () => {
		expect(codes("token: f00dbabe1234deadbeef", "config/app.yaml")).toEqual(["hardcoded_secret"]);
		expect(codes("token: f00dbabe1234deadbeef", "src/app.ts")).toEqual([]);
		expect(codes("API_TOKEN=f00dbabe1234deadbeef", "deploy/prod.env")).toEqual(["hardcoded_secret"]);
		expect(codes("API_TOKEN=f00dbabe1234deadbeef", "README.md")).toEqual([]);
	});

	test("the message names the variable, never the value", () => {
		const message = messageOf('const apiKey = "f00dbabe1234deadbeef";', "hardcoded_secret");
		expect(message).toContain("apiKey");
		expect(message).not.toContain("f00dbabe");
	});
});

describe("secret_logged", () => {
	test.each([
		["console.log(token);", "src/auth.ts", "token", "console.log"],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned text holds an interpolation
		["console.debug(`auth header: Bearer ${accessToken}`);", "src/auth.ts", "accessToken", "console.debug"],
		[
			'logger.info("login", { user: user.name, password: user.password });',
			"src/auth.ts",
			"password",
			"logger.info",
		],
		['this.logger.warn("config", config.apiKey)', "src/client.ts", "config.apiKey", "this.logger.warn"],
		["console.log('creds', credentials)", "src/aws.ts", "credentials", "console.log"],
		['print(f"using api key {api_key}")', "app/client.py", "api_key", "print"],
		['logging.debug("db password: %s", DB_PASSWORD)', "app/db.py", "DB_PASSWORD", "logging.debug"],
		['print("secret is " + client_secret)', "app/oauth.py", "client_secret", "print"],
		['log.Printf("token=%s", cfg.Token)', "cmd/main.go", "cfg.Token", "log.Printf"],
		['fmt.Println("private key:", privateKey)', "cmd/main.go", "privateKey", "fmt.Println"],
		[
			'System.out.println("password=" + password);',
			"src/main/java/Login.java",
			"password",
			"System.out.println",
		],
		['println!("token: {}", token);', "src/main.rs", "token", "println!"],
		['println("secret: $secret")', "src/Main.kt", "secret", "println"],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned text holds an interpolation
		['      - run: echo "${{ secrets.API_TOKEN }}"', ".github/workflows/ci.yml", "secrets.API_TOKEN", "echo"],
		['echo "password is $PASSWORD"', "scripts/debug.sh", "PASSWORD", "echo"],
	])("%p is flagged", (text, path, name, call) => {
		expect(scan(text, path)).toEqual([
			{
				code: "secret_logged",
				severity: "high",
				path,
				line: 1,
				message: `secret written to a log: "${name}" passed to ${call}`,
			},
		]);
	});

	test.each([
		'console.log("token refreshed");',
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned text holds an interpolation
		"logger.info(`password changed for ${user.email}`);",
		'logging.info("api key rotated")',
		'print("Enter your password:")',
		'log.Println("secret store ready")',
		'echo "token refreshed"',
		"console.log(tokenExpiresAt, tokenCount);",
		'logger.debug("auth", redact(token));',
		"console.log(maskSecret(apiKey));",
		'console.log("done"); const token = await login();',
		"window.print(token);",
		"const msg = sprintf(fmt, password);",
		"catalog.find(token);",
		'print("use {token} in the template")',
	])("%p is not flagged", (text) => {
		expect(codes(text)).toEqual([]);
	});

	test("several log calls on one line make one finding", () => {
		const findings = scan("console.log(token); console.error(password);");
		expect(findings.map((f) => f.code)).toEqual(["secret_logged"]);
		expect(findings[0]?.message).toContain('"token"');
	});
});

describe("scanLines", () => {
	test("no lines, or clean lines, give no findings", () => {
		expect(scanLines([], COMMANDS)).toEqual([]);
		expect(
			scanLines(
				[
					{ path: "src/a.ts", line: 1, text: 'import { readFile } from "node:fs/promises";' },
					{ path: "src/a.ts", line: 2, text: "export const form = () => submit(firmware);" },
				],
				COMMANDS,
			),
		).toEqual([]);
	});

	test("findings sort by severity rank, then path, line and code", () => {
		const lines: ScannedLine[] = [
			{ path: "b.sh", line: 9, text: "rm -rf /" },
			{ path: "a.sh", line: 3, text: 'PASSWORD="hunter2hunter2"; echo $PASSWORD; rm -f x' },
			{ path: "z.pem", line: 1, text: pemHeader("OPENSSH PRIVATE KEY") },
			{ path: "a.sh", line: 1, text: "chmod 600 key" },
			{ path: "m.env", line: 2, text: `AWS_ACCESS_KEY_ID=${AWS_KEY}` },
		];
		expect(scanLines(lines, COMMANDS).map((f) => [f.severity, f.path, f.line, f.code])).toEqual([
			["critical", "m.env", 2, "cloud_access_key"],
			["critical", "z.pem", 1, "private_key"],
			["high", "a.sh", 1, "dangerous_command"],
			["high", "a.sh", 3, "dangerous_command"],
			["high", "a.sh", 3, "hardcoded_secret"],
			["high", "a.sh", 3, "secret_logged"],
			["high", "b.sh", 9, "dangerous_command"],
		]);
	});

	test("severities rank critical, high, medium, low (not alphabetically)", () => {
		expect(SEVERITIES).toEqual(["critical", "high", "medium", "low"]);
	});

	test("the order does not depend on the input order", () => {
		const lines: ScannedLine[] = [
			{ path: "src/b.ts", line: 2, text: "console.log(token)" },
			{ path: "src/a.ts", line: 7, text: `const k = "${GITHUB_TOKEN}"` },
			{ path: "src/a.ts", line: 3, text: "spawn('rm', ['-rf', dir])" },
		];
		const forward = scanLines(lines, COMMANDS);
		expect(scanLines([...lines].reverse(), COMMANDS)).toEqual(forward);
		expect(forward.map((f) => `${f.path}:${f.line}`)).toEqual(["src/a.ts:7", "src/a.ts:3", "src/b.ts:2"]);
	});

	test("a realistic patch: every rule fires once where it should", () => {
		const added: ScannedLine[] = [
			{ path: "scripts/deploy.sh", line: 4, text: "set -euo pipefail" },
			{ path: "scripts/deploy.sh", line: 5, text: 'export DEPLOY_TOKEN="f00dbabe1234deadbeef"' },
			{ path: "scripts/deploy.sh", line: 6, text: 'echo "deploying with $DEPLOY_TOKEN"' },
			{ path: "scripts/deploy.sh", line: 7, text: "terraform apply -auto-approve" },
			{ path: "src/client.ts", line: 12, text: "const apiKey = process.env.API_KEY;" },
			{ path: "src/client.ts", line: 13, text: 'logger.info("client ready");' },
			{ path: "src/client.ts", line: 14, text: `const fallback = "${GOOGLE_KEY}";` },
			{ path: "keys/deploy_key", line: 1, text: pemHeader("OPENSSH PRIVATE KEY") },
		];
		const findings = scanLines(added, COMMANDS);
		expect(findings.map((f) => [f.path, f.line, f.code, f.severity])).toEqual([
			["keys/deploy_key", 1, "private_key", "critical"],
			["src/client.ts", 14, "cloud_access_key", "critical"],
			["scripts/deploy.sh", 5, "hardcoded_secret", "high"],
			["scripts/deploy.sh", 6, "secret_logged", "high"],
			["scripts/deploy.sh", 7, "dangerous_command", "high"],
		]);
		for (const f of findings) expect(f.message).not.toContain("f00dbabe");
		expect(findings.map((f) => f.message).join("\n")).not.toContain(GOOGLE_KEY);
	});
	test("a long generated line is scanned whole and stays cheap, even with an unclosed quote", () => {
		const filler = 'var a="x",b=function(c){return c.d?e:"f"};'.repeat(3000);
		const text = `${filler}const apiKey="f00dbabe1234deadbeef";${filler}token = "${"x=1,y:2,".repeat(25_000)}`;
		const started = performance.now();
		expect(codes(text, "dist/app.min.js")).toEqual(["hardcoded_secret"]);
		expect(performance.now() - started).toBeLessThan(2000);
	});
});

describe("verdictOf", () => {
	const finding = (severity: Finding["severity"]): Finding => ({
		code: "x",
		severity,
		path: "a",
		line: 1,
		message: "m",
	});

	test("no findings approve", () => {
		expect(verdictOf([])).toBe("approved");
	});

	test("non-critical findings need changes", () => {
		expect(verdictOf([finding("high"), finding("medium"), finding("low")])).toBe("needs_changes");
	});

	test("one critical finding vetoes, whatever else there is", () => {
		expect(verdictOf([finding("low"), finding("critical"), finding("high")])).toBe("veto");
	});

	test("end to end: a dangerous command needs changes, a leaked key vetoes", () => {
		expect(verdictOf(scan("rm -rf build", "clean.sh"))).toBe("needs_changes");
		expect(verdictOf(scan(`aws_access_key_id=${AWS_KEY}`, "config/aws.ini"))).toBe("veto");
		expect(verdictOf(scan("const total = form.rows.length;"))).toBe("approved");
	});
});
