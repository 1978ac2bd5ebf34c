/**
 * How a child that bench/pipeline.ts forks ends, when its file is the one run: `measure`'s report
 * sent to the parent (and delivered) and exit 0; a failure written to standard error and exit 1.
 */
export function reportToParent(child: NodeJS.Module, measure: () => Promise<object>): void {
  if (require.main !== child) return;
  measure()
    .then(
      (report) =>
        new Promise<void>((done, fail) =>
          process.send?.(report, (error: Error | null) => (error ? fail(error) : done())),
        ),
    )
    .then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
        process.exit(1);
      },
    );
}
