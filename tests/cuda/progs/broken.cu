// Does not compile: the build test checks that clang's message reaches the user.
__global__ void broken(float* x) { x[0] = undeclared_name; }
int main() { return 0; }
