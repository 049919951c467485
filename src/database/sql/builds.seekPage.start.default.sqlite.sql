with recursive "want" as (select want.total, cast(? as bigint) as skip, cast(? as bigint) as take
from (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c") as want), "walk"("day", "before", "here") as (select d.day, cast(0 as bigint), (select cast(coalesce(sum(t.n), 0) as bigint)
from "build_day_totals" t
where t.day = d.day)
from (select max(day) as day
from "build_day_totals") d
   
union all
    select (select max(x.day)
from "build_day_totals" x
where x.day < w.day), w.before + w.here, (select cast(coalesce(sum(t.n), 0) as bigint)
from "build_day_totals" t
where t.day = (select max(x.day)
from "build_day_totals" x
where x.day < w.day))
from walk w
   
where w.day is not null and w.before + w.here <= (select skip
from want)), "seek" as (select day, before
from walk
where day is not null and before + here > (select skip
from want)) select "b"."id", (select "want"."total"
from "want") as "total"
from "builds" as "b"
where "b"."uploaded_at" < ((select day
from seek) + 1) * 86400000
order by "b"."uploaded_at" desc, "b"."id" desc
limit (select take
from want)
offset (select skip
from want) - coalesce((select before
from seek), 0)
