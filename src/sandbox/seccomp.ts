// A seccomp filter that refuses TIOCSTI and TIOCLINUX: the two ioctls that push bytes into a
// terminal's input queue. A sandboxed agent that shares the operator's terminal (an interactive
// launch keeps it, so the CLI's own interface works) could otherwise type commands the operator's
// shell runs after it exits. Written here as classic BPF (what bwrap's --seccomp takes), since
// libseccomp is not something we can count on.

/** AUDIT_ARCH_* and the ioctl syscall number of each architecture we ship for. */
const ARCHES: Record<string, { audit: number; ioctl: number; x32: boolean }> = {
	x64: { audit: 0xc000003e, ioctl: 16, x32: true },
	arm64: { audit: 0xc00000b7, ioctl: 29, x32: false },
};

const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
const X32_SYSCALL_BIT = 0x40000000;

// Classic BPF opcodes.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

// struct seccomp_data: nr at 0, arch at 4, args[] (u64 each) from 16. Both architectures are
// little-endian, so args[1]'s low 32 bits (ioctl's request is an unsigned int) sit at 24.
const NR = 0;
const ARCH = 4;
const ARG1_LOW = 24;

type Op = { code: number; k: number; jt?: string; jf?: string } | { label: string };

/**
 * The filter as bwrap reads it from a descriptor: an array of struct sock_filter, or undefined on
 * an architecture we have no numbers for (the sandbox then relies on its new session alone).
 */
export function ttyFilter(arch: string = process.arch): Uint8Array | undefined {
	const a = ARCHES[arch];
	if (!a) return undefined;
	const ops: Op[] = [
		{ code: LD_W_ABS, k: ARCH },
		// Another ABI (i386 through int 0x80) has other numbers: nothing of it runs.
		{ code: JEQ_K, k: a.audit, jf: "foreign" },
		{ code: LD_W_ABS, k: NR },
		...(a.x32 ? [{ code: JGE_K, k: X32_SYSCALL_BIT, jt: "deny" }] : []),
		{ code: JEQ_K, k: a.ioctl, jf: "allow" },
		{ code: LD_W_ABS, k: ARG1_LOW },
		{ code: JEQ_K, k: TIOCSTI, jt: "deny" },
		{ code: JEQ_K, k: TIOCLINUX, jt: "deny" },
		{ label: "allow" },
		{ code: RET_K, k: RET_ALLOW },
		{ label: "deny" },
		{ code: RET_K, k: RET_ERRNO | EPERM },
		{ label: "foreign" },
		{ code: RET_K, k: RET_ERRNO | ENOSYS },
	];
	const at = new Map<string, number>();
	const code: Exclude<Op, { label: string }>[] = [];
	for (const op of ops) {
		if ("label" in op) at.set(op.label, code.length);
		else code.push(op);
	}
	const out = new Uint8Array(code.length * 8);
	const view = new DataView(out.buffer);
	code.forEach((op, i) => {
		// A jump counts the instructions it skips after its own.
		const skip = (label: string | undefined) => (label === undefined ? 0 : (at.get(label) as number) - i - 1);
		view.setUint16(i * 8, op.code, true);
		view.setUint8(i * 8 + 2, skip(op.jt));
		view.setUint8(i * 8 + 3, skip(op.jf));
		view.setUint32(i * 8 + 4, op.k, true);
	});
	return out;
}
