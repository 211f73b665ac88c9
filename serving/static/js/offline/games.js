// The games the page can play without the server: their rules engines, by game id.

import { fangqi } from './fangqi.js';
import { jiugong } from './jiugong.js';

export const GAMES = { jiugong, fangqi };
