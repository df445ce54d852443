import { defineModule } from "../../module.ts";
export const judgeModule = defineModule({ name: "judge" });
