import { Injectable } from '@nestjs/common';
import type { ToolId } from '../catalog/tools';
import type { UsageDayDto, UsageDto, UsageFiguresDto, UsageToolDto } from './usage.dto';
import type { UsageRange } from './usage-range';
import { UsageRepository, type UsageRow } from './usage.repository';

const zero = (): UsageFiguresDto => ({ credits_used: 0, results_completed: 0, results_failed: 0 });

function add(figures: UsageFiguresDto, row: UsageRow): void {
  figures.credits_used += row.creditsUsed;
  figures.results_completed += row.completed;
  figures.results_failed += row.failed;
}

/** An account's usage over a range of days, for one environment: totals, by day and by tool. */
@Injectable()
export class UsageService {
  constructor(private readonly usage: UsageRepository) {}

  async usageOf(caller: { accountId: string; sandbox: boolean }, range: UsageRange): Promise<UsageDto> {
    const rows = await this.rowsOf(caller, range);
    const totals = zero();
    const byDay = new Map<string, UsageDayDto>(range.days.map((date) => [date, { date, ...zero() }]));
    const byTool = new Map<ToolId, UsageToolDto>();
    for (const row of rows) {
      add(totals, row);
      const day = byDay.get(row.day);
      if (day) add(day, row);
      let tool = byTool.get(row.tool);
      if (!tool) byTool.set(row.tool, (tool = { tool: row.tool, ...zero() }));
      add(tool, row);
    }
    return {
      from: range.from,
      to: range.to,
      totals,
      by_day: [...byDay.values()],
      by_tool: [...byTool.values()].sort((a, b) => a.tool.localeCompare(b.tool)),
    };
  }

  /** What each tool's results did on each day of the range that had any, oldest day first, by tool. */
  rowsOf(caller: { accountId: string; sandbox: boolean }, range: UsageRange): Promise<UsageRow[]> {
    return this.usage.byDayAndTool(caller.accountId, caller.sandbox, range.from, range.to);
  }
}
