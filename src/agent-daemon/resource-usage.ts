import { cpus, freemem, totalmem } from 'node:os';

interface CpuTimes {
  idle: number;
  total: number;
}

/** CPU use since the previous reading (all cores) and memory in use, both as percentages 0–100. */
export class ResourceUsage {
  private previous = readCpuTimes();

  sample(): { cpu_percent: number; mem_percent: number } {
    const current = readCpuTimes();
    const total = current.total - this.previous.total;
    const idle = current.idle - this.previous.idle;
    this.previous = current;
    const cpu = total > 0 ? (1 - idle / total) * 100 : 0;
    const mem = (1 - freemem() / totalmem()) * 100;
    return { cpu_percent: round(cpu), mem_percent: round(mem) };
  }
}

function readCpuTimes(): CpuTimes {
  let idle = 0;
  let total = 0;
  for (const cpu of cpus()) {
    const { user, nice, sys, irq, idle: idleTime } = cpu.times;
    idle += idleTime;
    total += user + nice + sys + irq + idleTime;
  }
  return { idle, total };
}

function round(value: number): number {
  return Math.min(Math.max(Math.round(value * 10) / 10, 0), 100);
}
