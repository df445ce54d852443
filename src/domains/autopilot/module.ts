import { defineModule } from "../../module.ts";
export const autopilotModule = defineModule({ name: "autopilot" });
