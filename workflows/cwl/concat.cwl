#!/usr/bin/env cwl-runner
# The gather step of a scattered locate: the parts' rows, in part order.
cwlVersion: v1.2
class: CommandLineTool
label: concatenate
baseCommand: cat
inputs:
  parts:
    type: File[]
    inputBinding: {position: 1}
  output_name:
    type: string
    default: sites.bed
stdout: $(inputs.output_name)
outputs:
  joined:
    type: stdout
