# Pushes one byte into the terminal's input queue (TIOCSTI), as an agent typing into the operator's
# shell would; says whether the kernel took it.
my $c = "x";
if (ioctl(STDIN, 0x5412, $c)) { print "INJECTED\n" } else { print "refused: $!\n" }
