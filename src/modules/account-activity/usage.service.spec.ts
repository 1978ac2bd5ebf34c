import { ToolId } from '../catalog/tools';
import { usageRange } from './usage-range';
import type { UsageRepository, UsageRow } from './usage.repository';
import { UsageService } from './usage.service';

describe(UsageService.name, () => {
  const rows: UsageRow[] = [
    { day: '2026-11-02', tool: ToolId.RemoveBackground, creditsUsed: 3, completed: 3, failed: 0 },
    { day: '2026-11-02', tool: ToolId.ImageEditing, creditsUsed: 2, completed: 2, failed: 1 },
    { day: '2026-11-03', tool: ToolId.ImageEditing, creditsUsed: 1, completed: 1, failed: 2 },
  ];
  const asked: unknown[] = [];
  const repository = {
    byDayAndTool: async (...args: unknown[]) => {
      asked.push(args);
      return rows;
    },
  } as unknown as UsageRepository;

  it('adds the rows up by day (every day of the range) and by tool, and in total', async () => {
    const range = usageRange({ from: '2026-11-01', to: '2026-11-03' });
    const usage = await new UsageService(repository).usageOf({ accountId: 'account-1', sandbox: false }, range);
    expect(asked).toEqual([['account-1', false, '2026-11-01', '2026-11-03']]);
    expect(usage).toEqual({
      from: '2026-11-01',
      to: '2026-11-03',
      totals: { credits_used: 6, results_completed: 6, results_failed: 3 },
      by_day: [
        { date: '2026-11-01', credits_used: 0, results_completed: 0, results_failed: 0 },
        { date: '2026-11-02', credits_used: 5, results_completed: 5, results_failed: 1 },
        { date: '2026-11-03', credits_used: 1, results_completed: 1, results_failed: 2 },
      ],
      by_tool: [
        { tool: ToolId.ImageEditing, credits_used: 3, results_completed: 3, results_failed: 3 },
        { tool: ToolId.RemoveBackground, credits_used: 3, results_completed: 3, results_failed: 0 },
      ],
    });
  });
});
